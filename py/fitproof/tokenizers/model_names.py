"""Model names read as the encoding that counts their tokens, as tiktoken's ``encoding_for_model``
maps them (tiktoken 0.14's tables, cut to the two encodings this package counts exactly).

A name the first table holds maps directly; otherwise the first prefix of the second table
that the name starts with decides (``gpt-4o-2024-08-06`` is ``gpt-4o-``, so ``o200k_base``).
A model tiktoken knows under another encoding (``text-davinci-003``: ``p50k_base``) is named
in the error, never counted with a wrong one.
"""

from __future__ import annotations

MODEL_ENCODINGS = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}
# In tiktoken's order: the first prefix that matches decides.
PREFIX_ENCODINGS = (
    ("o1-", "o200k_base"),
    ("o3-", "o200k_base"),
    ("o4-mini-", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("gpt-4.5-", "o200k_base"),
    ("gpt-4.1-", "o200k_base"),
    ("chatgpt-4o-", "o200k_base"),
    ("gpt-4o-", "o200k_base"),
    ("gpt-4-", "cl100k_base"),
    ("gpt-3.5-turbo-", "cl100k_base"),
    ("gpt-35-turbo-", "cl100k_base"),
    ("gpt-oss-", "o200k_harmony"),
    ("ft:gpt-4o", "o200k_base"),
    ("ft:gpt-4", "cl100k_base"),
    ("ft:gpt-3.5-turbo", "cl100k_base"),
    ("ft:davinci-002", "cl100k_base"),
    ("ft:babbage-002", "cl100k_base"),
)
# Models tiktoken maps to encodings this package does not count (named in the error).
OTHER_ENCODINGS = {
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "code-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}
COUNTED = ("o200k_base", "cl100k_base")

# Gemini models whose text Google's local tokenizer counts with Gemma 3's SentencePiece model
# (google-genai 3.6.1, _local_tokenizer_loader.py: its two tables of models, all "gemma3"). They count
# with the tokenizer registered as "gemma3", once its file is given; the package ships no such file.
GEMINI_TOKENIZERS = dict.fromkeys(
    (
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
        "gemini-2.0-flash",
        "gemini-2.0-flash-lite",
        "gemini-2.5-pro-preview-06-05",
        "gemini-2.5-pro-preview-05-06",
        "gemini-2.5-pro-exp-03-25",
        "gemini-live-2.5-flash",
        "gemini-2.5-flash-preview-05-20",
        "gemini-2.5-flash-preview-04-17",
        "gemini-2.5-flash-lite-preview-06-17",
        "gemini-2.0-flash-001",
        "gemini-2.0-flash-lite-001",
        "gemini-3-pro-preview",
        "gemini-3-flash-preview",
    ),
    "gemma3",
)
# The file Google's SDK downloads for them (gemma_pytorch, commit 014acb7a), and its SHA-256.
GEMMA3_MODEL_FILE = ("gemma3_cleaned_262144_v2.spiece.model", "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c")


def gemini_tokenizer(model: object) -> str | None:
    """The registered tokenizer name a Gemini model counts with (``gemma3``), or None."""
    return GEMINI_TOKENIZERS.get(model) if isinstance(model, str) else None


# The names an error lists as examples.
EXAMPLES = ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o1", "o3", "o4-mini", "gpt-4", "gpt-3.5-turbo", "text-embedding-3-small")


def encoding_of(model: str) -> str | None:
    """The encoding tiktoken's ``encoding_for_model`` gives ``model`` (whatever it is), or None."""
    if model in MODEL_ENCODINGS:
        return MODEL_ENCODINGS[model]
    if model in OTHER_ENCODINGS:
        return OTHER_ENCODINGS[model]
    for prefix, encoding in PREFIX_ENCODINGS:
        if model.startswith(prefix):
            return encoding
    return None


def counted_encoding(model: object) -> str | None:
    """The encoding that counts ``model``'s tokens when this package counts it, else None."""
    if not isinstance(model, str):
        return None
    encoding = encoding_of(model)
    return encoding if encoding in COUNTED else None


def uncounted_reason(model: object) -> str | None:
    """Why a model tiktoken knows cannot be counted here (its encoding is another), or None."""
    if not isinstance(model, str):
        return None
    if model in GEMINI_TOKENIZERS:
        name = GEMINI_TOKENIZERS[model]
        return (
            f"the model {model!r} counts with Gemma 3's tokenizer, as Google's local tokenizer does (text only): "
            f"give its file the name {name!r} (--tokenizer-file {name}=PATH, or register_tokenizer({name!r}, PATH)): "
            f"Gemma 3's tokenizer.json or its SentencePiece file {GEMMA3_MODEL_FILE[0]}"
        )
    encoding = encoding_of(model)
    if encoding is None or encoding in COUNTED:
        return None
    return f"the model {model!r} uses the {encoding} encoding, which this package does not count (it counts o200k_base and cl100k_base)"
