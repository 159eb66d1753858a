"""Deterministic benchmark inputs, one maker per mode: ``make(count, seed) -> input``."""

import json
import random

WORDS = "refund policy order delivery customer damaged jar blender late credit ticket carrier photo claim".split()


def relevance_input(count: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    items = [
        {"id": f"item-{index:07d}", "relevance": round(rng.random() * 100, 3), "tokens": rng.randint(1, 400)} for index in range(count)
    ]
    rng.shuffle(items)
    return {"budget": count * 50, "items": items}


def required_input(count: int, seed: int = 0) -> dict:
    """One item in ten required; the required ones take about a tenth of the budget."""
    rng = random.Random(seed)
    items = [
        {"id": f"item-{index:07d}", "cost": rng.randint(1, 400), "priority": rng.randint(0, 1000), "required": index % 10 == 0}
        for index in range(count)
    ]
    rng.shuffle(items)
    return {"mode": "required", "budget": count * 100, "items": items}


def blocks_input(count: int, seed: int = 0) -> dict:
    """Blocks of 5 to 40 words, a tenth with given token counts, a few required."""
    rng = random.Random(seed)
    blocks = []
    for index in range(count):
        block = {
            "id": f"block-{index:07d}",
            "source": rng.choice(["crm", "policy-service", "order-service", "ops-wiki"]),
            "content": " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40))),
            "priority": rng.randint(0, 100),
            "observed_at": f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:00:00Z",
        }
        if index % 10 == 0:
            block["tokens"] = rng.randint(1, 60)
        if index % 1000 == 0:
            block["required"] = True
        blocks.append(block)
    rng.shuffle(blocks)
    # About half the blocks fit; the fixed-prompt allowance covers their headers in the rendered prompt.
    window = {"context_tokens": count * 40 + 1000, "reserved_output_tokens": 1000, "fixed_prompt_tokens": count * 25}
    return {"mode": "blocks", "window": window, "system": "Answer from the blocks.", "task": "Resolve the ticket.", "blocks": blocks}


def passages_input(count: int, seed: int = 1, counter: str = "words") -> dict:
    """Passages of 20 to 120 words; about half of them fit the limit."""
    rng = random.Random(seed)
    passages = [{"id": f"p{index}", "text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))} for index in range(count)]
    limit = 70 * count // 4 if counter == "words" else 120 * count // 4
    return {"mode": "passages", "question": "Is the customer owed a refund?", "limit": limit, "counter": counter, "passages": passages}


def messages_input(count: int, seed: int = 2) -> dict:
    """A system message, then user and assistant turns of 3 to 15 words; one assistant turn in
    twenty calls a tool (its result follows it); counted by o200k_base; about half the
    history fits the limit. Needs the rank file (node_modules/gpt-tokenizer or
    $FITPROOF_TOKENIZER_DATA)."""
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 15)))

    messages = [{"role": "system", "content": "Answer from the order history."}]
    while len(messages) < count:
        role = "user" if len(messages) % 2 else "assistant"
        if role == "assistant" and rng.random() < 0.05:
            call_id = f"call_{len(messages)}"
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": '{"q": "order"}'}}],
                }
            )
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text()})
            messages.append({"role": "assistant", "content": text()})
            continue
        messages.append({"role": role, "content": text()})
    return {"mode": "messages", "tokenizer": "o200k_base", "limit": count * 8, "messages": messages}  # count, or one or two more


def as_parsed(data: dict) -> dict:
    """``data`` as a user's input reaches evaluate(): parsed from JSON text (as the CLI, the
    page and Node's baseline get it). A list shuffled in Python keeps each item object where
    it was built, far from its neighbours in memory, which no parsed input does; at 100,000
    items that alone made every pass over the items about a fifth slower."""
    return json.loads(json.dumps(data))


MAKERS = {
    "relevance": relevance_input,
    "required": required_input,
    "blocks": blocks_input,
    "passages": passages_input,
    "messages": messages_input,
}


def realistic_request(rng: random.Random) -> dict:
    """One request as users send them: 10-200 items, a budget of 1,000-8,000 tokens, items
    of 20-600 tokens, retriever-like scores (four decimals; one request in five scores 1-10)."""
    count = rng.randint(10, 200)
    integral = rng.random() < 0.2
    items = [
        {
            "id": f"doc-{rng.randrange(10**6):06d}-{index}",
            "relevance": rng.randint(1, 10) if integral else round(rng.random(), 4),
            "tokens": rng.randint(20, 600),
        }
        for index in range(count)
    ]
    return {"budget": rng.randint(1000, 8000), "items": items}


def realistic_requests(count: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    return [realistic_request(rng) for _ in range(count)]
