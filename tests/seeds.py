"""The seeds' own example inputs, shared by the tests of every folder: the seeds are the published
designs the first modes adapt (docs/contract.md, "Where the modes come from")."""

SEED_000 = {
    "budget": 7,
    "items": [
        {"id": "A", "relevance": 9, "tokens": 4},
        {"id": "B", "relevance": 8, "tokens": 5},
        {"id": "C", "relevance": 7, "tokens": 3},
    ],
}

SEED_003 = {
    "mode": "required",
    "budget": 8,
    "items": [
        {"id": "contract", "cost": 3, "priority": 0, "required": True, "content": "Requested outcome"},
        {"id": "recent", "cost": 4, "priority": 9, "required": False, "content": "Recent result"},
        {"id": "older", "cost": 3, "priority": 2, "required": False, "content": "Old result"},
    ],
}
