"""Configs as the package takes them: a path or a dict, with overrides by dotted key or pointer."""
from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any, Union

from ftsim import _ftsim

ConfigLike = Union[str, Path, dict]


class ConfigError(ValueError):
    """A bad config: ``file``, JSON ``pointer`` and ``message``, as the CLI prints them."""

    def __init__(self, file: str, pointer: str, message: str):
        self.file, self.pointer, self.message = file, pointer, message
        where = ": ".join(part for part in (file, pointer) if part)
        super().__init__(f"{where}: {message}" if where else message)

    @staticmethod
    @contextlib.contextmanager
    def translated(config: "ConfigLike | None" = None):
        """Turns the C++ module's ConfigError into this class; an error in a key that an override
        of ``config`` (``apply_overrides``) set names the override, not the config file."""
        try:
            yield
        except _ftsim.ConfigError as e:
            raise name_override(ConfigError(*e.args), config) from None


def name_override(error: ConfigError, config: "ConfigLike | None") -> ConfigError:
    """``error`` naming the innermost override whose key holds its pointer (``override
    protocol.period=-3``), as ``ftsim run --set`` does; else ``error`` itself."""
    owner = None
    for pointer, label in getattr(config, "overrides", ()):
        inside = error.pointer == pointer or error.pointer.startswith(pointer + "/")
        if inside and (owner is None or len(pointer) > len(owner[0])):
            owner = (pointer, label)
    return ConfigError(owner[1], error.pointer, error.message) if owner else error


def _pointer_parts(key: str) -> list[str]:
    if key.startswith("/"):
        return [part.replace("~1", "/").replace("~0", "~") for part in key[1:].split("/")]
    return key.split(".")


def set_key(document: dict, key: str, value: Any) -> None:
    """Sets ``key`` (dotted or a JSON pointer) in ``document``, creating objects on the way."""
    parts = _pointer_parts(key)
    node = document
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            node = node[int(part)]
            continue
        if part not in node or not isinstance(node[part], (dict, list)):
            node[part] = {}
        node = node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _pointer(parts: list[str]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _first_non_json(value: Any, parts: list[str]) -> tuple[list[str], str] | None:
    """Where ``value`` holds something JSON cannot say (NaN, infinity, a set...), and why."""
    if isinstance(value, float) and value != value:
        return parts, "NaN is not a JSON number"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return parts, f"{value} is not a JSON number"
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return parts, f"the key {k!r} is not a string"
            found = _first_non_json(v, parts + [k])
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _first_non_json(v, parts + [str(i)])
            if found:
                return found
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return None
    return parts, f"a {type(value).__name__} is not a JSON value"


def apply_overrides(config: ConfigLike, overrides: dict) -> ConfigLike:
    """The config with ``overrides`` applied (a path stays a path when there are none)."""
    if not overrides:
        return config
    if isinstance(config, dict):
        document, origin = copy.deepcopy(config), None
    else:
        path = Path(config)
        try:
            document = json.loads(path.read_text())
        except OSError as e:
            raise ConfigError(str(path), "", f"cannot read this file: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ConfigError(str(path), "", f"not valid JSON: {e}") from None
        origin = str(path)
    named = []
    for key, value in overrides.items():
        label = f"override {key}={value!r}"
        found = _first_non_json(value, _pointer_parts(key))
        if found:
            where, why = found
            raise ConfigError(label, _pointer(where), why)
        set_key(document, key, value)
        named.append((_pointer(_pointer_parts(key)), label))
    if origin is not None:
        # Keep the file's name so that relative paths inside resolve from its folder.
        document.setdefault("name", Path(origin).stem)
    return _Derived(document, origin, named)


class _Derived(dict):
    """A document with overrides applied (``overrides``: their pointers and labels, which errors
    name); read from the file ``origin`` (None for a dict), relative paths still resolve from it."""

    def __init__(self, document: dict, origin: str | None, overrides: list | None = None):
        super().__init__(document)
        self.origin = origin
        self.overrides = overrides or []


def config_source(config: ConfigLike) -> tuple[str, str, bool]:
    """(JSON text, origin for messages and relative paths, whether origin is the file to read)."""
    if isinstance(config, dict):
        origin = config.origin if isinstance(config, _Derived) and config.origin else "<dict>"
        found = _first_non_json(dict(config), [])
        if found:
            where, why = found
            raise ConfigError(origin, _pointer(where), why)
        return json.dumps(config), origin, False
    if isinstance(config, (str, Path)):
        return "", str(config), True
    raise TypeError(f"config must be a path or a dict, not {type(config).__name__}")
