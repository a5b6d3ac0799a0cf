"""An INI-style configuration loader with typed fields declared by decorators,
validators built from closures, interpolation of `${section.key}` references and
environment-style overrides.

Bug report: an override `server.port=8080` given as a string bypasses the field's
converter, so the range validator compares a str with an int and the loader reports
a confusing error.
"""

import re
from collections import OrderedDict

INTERP = re.compile(r"\$\{([a-z_]+)\.([a-z_]+)\}")


class ConfigError(Exception):
    pass


def between(lo, hi):
    def check(name, value):
        if not (lo <= value <= hi):
            raise ConfigError(f"{name}={value!r} not in [{lo}, {hi}]")

    check.__doc__ = f"between {lo} and {hi}"
    return check


def one_of(*choices):
    def check(name, value):
        if value not in choices:
            raise ConfigError(f"{name}={value!r} not one of {choices}")

    return check


def non_empty(name, value):
    if not value:
        raise ConfigError(f"{name} must not be empty")


class Field:
    def __init__(self, convert, default=None, validators=()):
        self.convert = convert
        self.default = default
        self.validators = list(validators)
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj._values.get(self.name, self.default)

    def __set__(self, obj, raw):
        value = self.convert(raw) if isinstance(raw, str) and self.convert is not str else raw
        obj._values[self.name] = value


def validated(*checks):
    """Attach validators to the Field returned by the decorated factory."""

    def wrap(factory):
        def make(*args, **kwargs):
            field = factory(*args, **kwargs)
            field.validators.extend(checks)
            return field

        return make

    return wrap


@validated(between(1, 65535))
def port_field(default):
    return Field(int, default)


@validated(one_of("debug", "info", "warning", "error"))
def level_field(default):
    return Field(str.lower, default)


def parse_bool(text):
    return text.strip().lower() in ("1", "yes", "true", "on")


class Section:
    def __init__(self):
        self._values = {}

    def validate(self, prefix):
        for name, field in vars(type(self)).items():
            if isinstance(field, Field):
                value = getattr(self, name)
                for check in field.validators:
                    check(f"{prefix}.{name}", value)


class Server(Section):
    host = Field(str, "127.0.0.1", [non_empty])
    port = port_field(8000)
    workers = Field(int, 2, [between(1, 64)])
    debug = Field(parse_bool, False)


class Logging(Section):
    level = level_field("info")
    file = Field(str, "")


class Paths(Section):
    root = Field(str, "/srv", [non_empty])
    static = Field(str, "${paths.root}/static")


SECTIONS = {"server": Server, "logging": Logging, "paths": Paths}


def read_ini(text):
    data = OrderedDict()
    section = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = data.setdefault(line[1:-1].strip(), OrderedDict())
            continue
        if "=" not in line or section is None:
            raise ConfigError(f"line {lineno}: cannot parse {raw!r}")
        key, value = (p.strip() for p in line.split("=", 1))
        section[key] = value
    return data


def interpolate(raw):
    def lookup(match):
        sec, key = match.groups()
        return str(raw[sec][key])

    for sec in raw.values():
        for key, value in sec.items():
            for _ in range(5):
                if not isinstance(value, str) or "${" not in value:
                    break
                value = INTERP.sub(lookup, value)
            sec[key] = value
    return raw


class Config:
    def __init__(self, text, overrides=()):
        raw = interpolate(read_ini(text))
        self.sections = {}
        for name, cls in SECTIONS.items():
            section = cls()
            for key, value in raw.get(name, {}).items():
                if not isinstance(getattr(cls, key, None), Field):
                    raise ConfigError(f"unknown key {name}.{key}")
                setattr(section, key, value)
            self.sections[name] = section
        for item in overrides:
            path, value = item.split("=", 1)
            sec, key = path.split(".")
            self.sections[sec]._values[key] = value

    def validate(self):
        for name, section in self.sections.items():
            section.validate(name)

    def __getattr__(self, name):
        try:
            return self.sections[name]
        except KeyError:
            raise AttributeError(name) from None


TEXT = """
[server]
host = 0.0.0.0
port = 9000
workers = 4
debug = yes

[logging]
level = INFO
file = ${paths.root}/log/app.log

[paths]
root = /opt/app
"""


def main():
    base = Config(TEXT)
    base.validate()
    print(f"server {base.server.host}:{base.server.port} x{base.server.workers} debug={base.server.debug}")
    print(f"log {base.logging.level} -> {base.logging.file}")
    print(f"static {base.paths.static}")
    try:
        Config(TEXT, overrides=["server.port=8080", "logging.level=debug"]).validate()
    except TypeError as err:
        raise ConfigError("while validating overrides: " + str(err)) from err


main()
