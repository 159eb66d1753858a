"""OpenAI's cookbook ("How to count tokens with tiktoken"), as published, counting with tiktoken:
the reference the fixtures and tests state tool-definition counts by. Needs the test extra."""

from _text import reference_encoding


def num_tokens_for_tools(functions: list, encoding_name: str) -> int:
    """The cookbook's ``num_tokens_for_tools`` without the messages: the functions' tokens."""
    encoding = reference_encoding(encoding_name)
    func_init, prop_init, prop_key, enum_init, enum_item, func_end = (
        (7, 3, 3, -3, 3, 12) if encoding_name == "o200k_base" else (10, 3, 3, -3, 3, 12)
    )
    func_token_count = 0
    for f in functions:
        func_token_count += func_init
        function = f["function"]
        f_desc = function["description"]
        if f_desc.endswith("."):
            f_desc = f_desc[:-1]
        func_token_count += len(encoding.encode_ordinary(function["name"] + ":" + f_desc))
        if len(function["parameters"]["properties"]) > 0:
            func_token_count += prop_init
            for key in list(function["parameters"]["properties"].keys()):
                func_token_count += prop_key
                p = function["parameters"]["properties"][key]
                if "enum" in p.keys():
                    func_token_count += enum_init
                    for item in p["enum"]:
                        func_token_count += enum_item + len(encoding.encode_ordinary(item))
                p_desc = p["description"][:-1] if p["description"].endswith(".") else p["description"]
                func_token_count += len(encoding.encode_ordinary(f"{key}:{p['type']}:{p_desc}"))
    return func_token_count + func_end
