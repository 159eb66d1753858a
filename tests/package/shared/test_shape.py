"""The column-wise fast path accepts only what the item-by-item validator accepts, with the same values."""

from hypothesis import given, strategies as st

from fitproof._shared.shape import fast_columns, read_records
from fitproof.modes import passages, relevance, required

VALUES = st.one_of(
    st.integers(-2, 5),
    st.sampled_from([4.0, 2.5, True, None, 2**53, 10**400, float("inf"), "", " ", "a", "b", "\u3000", [], {}]),
)
KEYS = st.sampled_from(["id", "relevance", "tokens", "content", "cost", "priority", "required", "text", "other"])
NEAR_ITEMS = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "c", " ", 1]), "relevance": VALUES, "tokens": VALUES},
    optional={"content": VALUES, "other": VALUES},
)
ELEMENTS = st.one_of(
    st.lists(st.one_of(st.dictionaries(KEYS, VALUES, max_size=6), VALUES), max_size=6),
    st.lists(NEAR_ITEMS, max_size=4),
)


taken = []


@given(ELEMENTS, st.sampled_from([relevance.SHAPE, required.SHAPE, passages.SHAPE]))
def test_fast_path_agrees_with_the_validator(elements, shape):
    columns = fast_columns(elements, shape.item)
    problems = []
    records = read_records(elements, ("x",), shape.item, problems)
    if columns is None:
        return  # the validator decides, and reports any problem
    taken.append(1)
    assert problems == []
    assert columns == ([list(column) for column in zip(*records)] if records else [[] for _ in shape.item])
    assert [list(map(type, column)) for column in columns] == [
        [type(value) for value in column] for column in ([list(c) for c in zip(*records)] if records else [[] for _ in shape.item])
    ]


def test_fast_path_takes_a_large_valid_input():
    items = [{"id": f"i{index}", "relevance": index % 7, "tokens": index % 5} for index in range(1000)]
    assert fast_columns(items, relevance.SHAPE.item) is not None
    assert fast_columns(items + [{"id": "x", "relevance": 1, "tokens": 4.0}], relevance.SHAPE.item) is None  # 4.0 needs the validator


def test_the_property_above_exercised_the_fast_path():
    assert taken, "no generated input took the fast path"


BLOCK_VALUES = st.one_of(
    st.integers(-1, 101),
    st.sampled_from(
        [4.0, True, False, None, "", "x", "2026-03-01T10:00:00Z", "2026-02-30T10:00:00Z", "2026-03-01T10:00:00+02:00", "2026-03-01 10:00"]
    ),
)
NEAR_BLOCKS = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b", "c", " "]),
        "source": st.sampled_from(["crm", "", 3]),
        "content": st.sampled_from(["text", "", None]),
        "priority": BLOCK_VALUES,
        "observed_at": BLOCK_VALUES,
    },
    optional={"required": BLOCK_VALUES, "tokens": BLOCK_VALUES, "other": BLOCK_VALUES},
)
blocks_taken = []


@given(st.lists(NEAR_BLOCKS, max_size=4))
def test_blocks_fast_path_agrees_with_the_validator(elements):
    """Blocks too: priorities, instants (each read once) and the optional required/tokens."""
    from fitproof.modes import blocks

    columns = fast_columns(elements, blocks.SHAPE.item)
    problems = []
    records = read_records(elements, ("blocks",), blocks.SHAPE.item, problems)
    if columns is None:
        return
    blocks_taken.append(1)
    assert problems == []
    assert columns == ([list(column) for column in zip(*records)] if records else [[] for _ in blocks.SHAPE.item])


def test_blocks_fast_path_exercised():
    assert blocks_taken, "no generated blocks took the fast path"
