"""Property test: validate_config never raises, whatever JSON-ish input it gets."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.training.config import DEFAULT_CONFIG, FIELDS, validate_config

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

# Strings a learner might type for a number, and one far too long, besides what hypothesis makes up.
typed = st.sampled_from(["64", "1e-3", "1e999", "0x10", "٣", "-0", "x" * 10_000])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=80),
    typed,
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3), max_leaves=8
)
keys = st.one_of(st.sampled_from(FIELDS), st.text(max_size=20), st.none(), st.integers())  # a caller's dict


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, json_values, max_size=12), st.booleans())
def test_validate_config_never_raises(data, start_from_default):
    if start_from_default:
        data = {**DEFAULT_CONFIG, **data}
    config, errors = validate_config(data)
    assert (config is None) == bool(errors)
    for key, messages in errors.items():
        assert isinstance(key, str) and messages and all(isinstance(m, str) for m in messages)
    if config is not None:
        json.dumps(config.to_dict(), allow_nan=False)  # what is stored is plain JSON


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_value(data):
    config, errors = validate_config(data)
    assert (config is None) == bool(errors)
