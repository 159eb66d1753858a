"""The least Python can do for seed 000's rule: one sort and one pass, no validation."""


def minimal(data: dict) -> list:
    remaining, selected = data["budget"], []
    for item in sorted(data["items"], key=lambda item: (-item["relevance"], item["id"])):
        if item["tokens"] <= remaining:
            selected.append(item["id"])
            remaining -= item["tokens"]
    return selected
