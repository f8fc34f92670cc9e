"""Paths into a record, as the registry declares paging and CSV rows (lib/operations/paths.ts reads
them the same way on the server): dot-separated fields; a field ending in [] stands for each entry
of that list. "page_info.end_cursor", "followers[].node", "data[]"."""

from __future__ import annotations

from typing import Any

_MISSING = object()


def value_at(record: Any, path: str) -> Any:
    """The value at a path without [], or None when the record has none."""
    value: Any = record
    for field in path.split("."):
        value = value.get(field, _MISSING) if isinstance(value, dict) else _MISSING
        if value is _MISSING:
            return None
    return value


def values_at(record: Any, path: str) -> list[Any]:
    """Every value a path reaches: one per entry for each []."""
    values: list[Any] = [record]
    for field in path.split("."):
        is_list = field.endswith("[]")
        name = field[:-2] if is_list else field
        found: list[Any] = []
        for value in values:
            child = value.get(name, _MISSING) if isinstance(value, dict) else _MISSING
            if is_list:
                found.extend(child if isinstance(child, list) else [])
            elif child is not _MISSING:
                found.append(child)
        values = found
    return values
