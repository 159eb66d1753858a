"""Deterministic benchmark inputs."""

import random


def relevance_input(count: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    items = [
        {"id": f"item-{index:07d}", "relevance": round(rng.random() * 100, 3), "tokens": rng.randint(1, 400)}
        for index in range(count)
    ]
    rng.shuffle(items)
    return {"budget": count * 50, "items": items}
