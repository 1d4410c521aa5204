"""The one spec of training options: ``train()``'s keywords, the CLI's flags, the saved keys.

Each ``Option`` holds a name, its type, default and help, and the algorithms that take
it (in the spirit of sentencepiece's ``TrainerSpec``). From ``TRAIN_OPTIONS`` come
``train()``'s signature and defaults (``signature``), the ``count``/``train`` commands'
flags (``add_arguments``: the flag is the name with dashes, ``--vocab-size``), the keys
``train()`` saves in ``wordpieces.json`` (``saved_options``) and the checks of what a
user gives (``resolve``: an unknown name, an option the algorithm does not take, a value
of the wrong type, each an error naming the option). One name per option; where two
names stay for a reference's sake the other is an alias (``joiner`` for
``continuing_subword_prefix``, TF Text's name; ``reserved_tokens`` for ``special_tokens``).

Not handled here: what the options do (``training``, ``counting``, the learners); the
CLI's own options that are not training options (``-o``, ``--counts``).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import inspect
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from ..flavors.rules import FLAVORS

__all__ = ["ALGORITHMS", "Option", "TRAIN_OPTIONS", "OPTIONS", "resolve", "signature",
           "add_arguments", "saved_options", "options_table"]

ALGORITHMS = ("top-down", "bottom-up", "word-level")
DEFAULT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
SCORES = ("count", "likelihood", "pmi")  # merge_scores.SCORES (a test keeps them equal)
BLOCKSIZE = 8 << 20  # counting.DEFAULT_BLOCKSIZE (a test keeps them equal)
ANY = "any"  # an Option.type: taken as given (a Dask client, a callable …), no check
TOKENS = "tokens"  # an Option.type: a list of strings (CLI: comma-separated)
CHARS = "chars"  # an Option.type: characters (CLI: one string)
LEARNER_GROUPS = ("top-down", "bottom-up")  # the groups of the learners' own options


@dataclasses.dataclass(frozen=True)
class Option:
    """One training option: what ``train()``, the CLI and ``wordpieces.json`` call it.

    ``type``: ``bool``, ``int``, ``float``, ``str``, ``TOKENS``, ``CHARS`` or ``ANY``;
    ``default`` None means "the learner decides" (``default_text`` says what);
    ``algorithms``: those that take it; ``group``: its section in ``--help`` and the docs;
    ``aliases``: other accepted names (Python and CLI); ``cli_aliases``: extra flags only;
    ``saved``: kept in ``wordpieces.json`` (False for how a run is done, not what it
    learns: processes, scheduler, progress); ``cli``: False when the command line gives it
    another way (``--progress`` is a global option).
    """

    name: str
    type: Any
    default: Any
    help: str
    group: str
    algorithms: tuple[str, ...] = ALGORITHMS
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    nullable: bool = False
    default_text: str | None = None
    aliases: tuple[str, ...] = ()
    cli_aliases: tuple[str, ...] = ()
    saved: bool = True
    cli: bool = True
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """The CLI flag: the name with dashes (``--vocab-size``)."""
        return "--" + self.name.replace("_", "-")

    @property
    def flags(self) -> list[str]:
        """Every flag the CLI accepts for this option, the main one first."""
        return [self.flag] + ["--" + a.replace("_", "-") for a in self.aliases] + list(
            self.cli_aliases)

    def shown_default(self) -> str:
        """The default as ``--help`` and the docs print it."""
        if self.default_text is not None:
            return self.default_text
        if isinstance(self.default, bool):
            return "yes" if self.default else "no"
        if self.type == TOKENS:
            return ",".join(self.default)
        if self.type == CHARS:
            return "".join(self.default) or "none"
        if isinstance(self.default, int):
            return f"{self.default:_}".replace("_", ",") if self.default >= 10_000 else (
                str(self.default))
        return str(self.default)


def _opt(name: str, type_: Any, default: Any, help_: str, group: str, **more) -> Option:
    return Option(name, type_, default, help_, group, **more)


TOP_DOWN = ("top-down",)
BOTTOM_UP = ("bottom-up",)
SUBWORD = ("top-down", "bottom-up")

TRAIN_OPTIONS: tuple[Option, ...] = (
    _opt("algorithm", str, "top-down", "top-down (BERT / TF Text's learner), bottom-up "
         "(WordPiece by merges, as HF's trainer) or word-level", "vocabulary",
         choices=ALGORITHMS),
    _opt("vocab_size", int, 30_000, "tokens to learn, reserved tokens included (word-level: "
         "at most; alias max_size in learn_word_level)", "vocabulary",
         metavar="N"),  # no minimum here: train() names the real one (reserved tokens + 1)
    _opt("special_tokens", TOKENS, DEFAULT_SPECIALS, "reserved tokens; they lead the "
         "vocabulary and must hold unk_token (alias reserved_tokens, TF Text's name)",
         "vocabulary", aliases=("reserved_tokens",), metavar="T1,T2,..."),
    _opt("unk_token", str, "[UNK]", "the unknown token", "vocabulary", metavar="TOKEN"),
    _opt("continuing_subword_prefix", str, "##", "prefix of continuation pieces (alias "
         "joiner, TF Text's name)", "vocabulary", algorithms=SUBWORD, aliases=("joiner",),
         metavar="STR"),
    _opt("template", str, "auto", "post-processor template in HF syntax ('[CLS] $A [SEP]');"
         " auto: [CLS] $A [SEP] when the vocabulary has them; none: no special tokens",
         "vocabulary", nullable=True, metavar="TEMPLATE"),
    _opt("lowercase", bool, True, "lowercase the text", "normalizer"),
    _opt("strip_accents", bool, None, "remove accents", "normalizer", nullable=True,
         default_text="when lowercasing"),
    _opt("clean_text", bool, True, "drop control characters, map whitespace to spaces",
         "normalizer"),
    _opt("handle_chinese_chars", bool, True, "put spaces around CJK ideographs",
         "normalizer"),
    _opt("flavor", str, "bert", "whose edge cases to reproduce", "normalizer",
         choices=FLAVORS),
    _opt("upper_thresh", int, 10_000_000, "highest count threshold searched", "top-down",
         algorithms=TOP_DOWN, minimum=0, nullable=True, metavar="N"),
    _opt("lower_thresh", int, 10, "lowest count threshold searched; lower it when the "
         "vocabulary comes out smaller than vocab_size (1 keeps anything seen once)",
         "top-down", algorithms=TOP_DOWN, minimum=0, nullable=True, metavar="N"),
    _opt("num_iterations", int, 4, "rounds of counting and subtracting per threshold",
         "top-down", algorithms=TOP_DOWN, minimum=1, metavar="N"),
    _opt("max_input_tokens", int, 5_000_000, "learn from at most this many distinct words, "
         "most frequent first", "top-down", algorithms=TOP_DOWN, minimum=1, nullable=True,
         metavar="N"),
    _opt("max_token_length", int, 50, "longer words are left out of learning", "top-down",
         algorithms=TOP_DOWN, minimum=1, metavar="N"),
    _opt("max_unique_chars", int, 1000, "keep only this many distinct characters, most "
         "frequent first; words with others are left out", "top-down", algorithms=TOP_DOWN,
         minimum=1, metavar="N"),
    _opt("slack_ratio", float, 0.05, "accept a vocabulary this fraction below vocab_size",
         "top-down", algorithms=TOP_DOWN, minimum=0, metavar="X"),
    _opt("include_joiner_token", bool, True, "also add each character with the prefix "
         "(##a …), as BERT's vocabularies have", "top-down", algorithms=TOP_DOWN),
    _opt("min_frequency", int, 0, "pairs (word-level: words) seen fewer times are never "
         "merged (kept)", "bottom-up", algorithms=("bottom-up", "word-level"), minimum=0,
         metavar="N"),
    _opt("limit_alphabet", int, None, "keep only the most frequent characters; words with "
         "others are left out", "bottom-up", algorithms=BOTTOM_UP, minimum=1, nullable=True,
         default_text="no limit", metavar="N"),
    _opt("initial_alphabet", CHARS, (), "characters always kept, in both forms",
         "bottom-up", algorithms=BOTTOM_UP, metavar="CHARS"),
    _opt("score", str, "count", "what ranks merges", "bottom-up", algorithms=BOTTOM_UP,
         choices=SCORES),
    _opt("drop_unused", bool, None, "leave out merged tokens the training words never use, "
         "merging on to fill their slots", "bottom-up", algorithms=BOTTOM_UP, nullable=True,
         default_text="with score count"),
    _opt("refine", bool, False, "after merging, swap tokens greedy longest match rarely "
         "uses for ones that save more tokens on the training words", "bottom-up",
         algorithms=BOTTOM_UP),
    _opt("engine", str, "local", "local processes or a Dask cluster", "counting",
         choices=("local", "dask"), saved=False),
    _opt("scheduler", ANY, None, "Dask scheduler address, e.g. tcp://host:8786", "counting",
         nullable=True, default_text="start a local cluster", saved=False, metavar="ADDR"),
    _opt("num_proc", int, None, "worker processes", "counting", minimum=1, nullable=True,
         default_text="all cores", saved=False, metavar="N"),
    _opt("blocksize", int, BLOCKSIZE, "bytes of a file per task", "counting", minimum=1,
         default_text="8 MiB", saved=False, metavar="BYTES"),
    _opt("checkpoint", ANY, None, "record finished blocks in this folder; a re-run after a "
         "kill resumes there (files only, same inputs and options)", "counting",
         nullable=True, default_text="none", saved=False, metavar="DIR"),
    _opt("max_distinct_words", int, None, "keep the N most common words (exact counts, ties "
         "by word), holding N in memory and spilling the rest to a temporary folder "
         "(--max-words: the older flag)", "counting", minimum=1, nullable=True,
         default_text="no limit", cli_aliases=("--max-words",), metavar="N"),
    _opt("ignore_fingerprint", bool, False, "use word counts made with other normalization "
         "options anyway", "counting", saved=False),
    _opt("progress", ANY, "auto", "auto (a bar on stderr when it is a terminal), bar, "
         "jsonl, none or a callable (CLI: the global --progress)", "counting", saved=False,
         cli=False),
)

OPTIONS: dict[str, Option] = {o.name: o for o in TRAIN_OPTIONS}
ALIASES: dict[str, str] = {a: o.name for o in TRAIN_OPTIONS for a in o.aliases}


# ---------------------------------------------------------------- checking


def resolve(given: Mapping[str, Any], *, cli: bool = False) -> dict[str, Any]:
    """Check the options ``given`` and return every option of their algorithm, defaults filled.

    Aliases become their option's name; an unknown name, an option the algorithm does not
    take or a value of the wrong type is a ``ValueError`` naming it (with ``cli``, by its
    flag).

    >>> resolve({"algorithm": "bottom-up", "joiner": "@@"})["continuing_subword_prefix"]
    '@@'
    >>> resolve({"algorithm": "bottom-up", "lower_thresh": 2})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: lower_thresh is a top-down option; algorithm='bottom-up' takes: min_freq...
    """
    named = _canonical(given, cli)
    algorithm = named.get("algorithm", OPTIONS["algorithm"].default)
    named["algorithm"] = check_value(OPTIONS["algorithm"], algorithm, cli)
    for name, value in named.items():
        option = OPTIONS[name]
        if algorithm not in option.algorithms:
            raise ValueError(_not_taken(option, algorithm, cli))
        named[name] = check_value(option, value, cli)
    return {o.name: named.get(o.name, _default(o)) for o in TRAIN_OPTIONS
            if algorithm in o.algorithms}


def _canonical(given: Mapping[str, Any], cli: bool) -> dict[str, Any]:
    """``given`` with aliases renamed; unknown names and clashing aliases refused."""
    named: dict[str, Any] = {}
    for key, value in given.items():
        name = ALIASES.get(key, key)
        if name not in OPTIONS:
            raise ValueError(_unknown(key, cli))
        if name in named and _plain(named[name]) != _plain(value):
            other = [k for k in given if ALIASES.get(k, k) == name and k != key][0]
            raise ValueError(f"{_label(key, cli)} and {_label(other, cli)} are the same "
                             f"option ({_label(name, cli)}) under two names: give one")
        named[name] = value
    return named


def _unknown(key: str, cli: bool) -> str:
    names = list(OPTIONS) + list(ALIASES)
    close = difflib.get_close_matches(key, names, n=1)
    hint = f" (did you mean {_label(close[0], cli)}?)" if close else ""
    return (f"unknown training option {_label(key, cli)}{hint}; the options are "
            f"{', '.join(_label(n, cli) for n in OPTIONS)}")


def _not_taken(option: Option, algorithm: str, cli: bool) -> str:
    own = [o.name for o in TRAIN_OPTIONS
           if algorithm in o.algorithms and o.group in LEARNER_GROUPS]
    takes = ", ".join(_label(n, cli) for n in own) or "no learner options"
    owners = " or ".join(option.algorithms)
    if cli:
        return (f"{option.flag} applies to --algorithm {owners}, not {algorithm} (which "
                f"takes {takes})")
    return (f"{option.name} is a {owners} option; algorithm={algorithm!r} takes: {takes} "
            "(and the common options)")


def _label(name: str, cli: bool) -> str:
    return "--" + name.replace("_", "-") if cli else name


def check_value(option: Option, value: Any, cli: bool = False) -> Any:
    """Return ``value`` checked against ``option`` (lists for ``TOKENS``/``CHARS``)."""
    if value is None and (option.nullable or option.default is None):
        return None
    kind = option.type
    if kind == TOKENS or kind == CHARS:
        return _strings(option, value, cli)
    ok = {bool: isinstance(value, bool),
          int: isinstance(value, numbers.Integral) and not isinstance(value, bool),
          float: isinstance(value, numbers.Real) and not isinstance(value, bool),
          str: isinstance(value, str)}.get(kind, True)
    if not ok:
        raise ValueError(f"{_label(option.name, cli)} must be {_type_name(option)}, not "
                         f"{value!r}")
    if option.choices is not None and value not in option.choices:
        raise ValueError(f"{_label(option.name, cli)}={value!r}: expected one of "
                         f"{', '.join(map(str, option.choices))}")
    if option.minimum is not None and value < option.minimum:
        raise ValueError(f"{_label(option.name, cli)}={value!r}: must be at least "
                         f"{option.minimum:g}")
    return value


def _strings(option: Option, value: Any, cli: bool) -> list[str]:
    if isinstance(value, str) and option.type == CHARS:
        return list(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{_label(option.name, cli)} must be {_type_name(option)}, not "
                         f"{value!r}")
    items = list(value)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise ValueError(f"{_label(option.name, cli)}: {bad[0]!r} is not a string")
    return items


def _type_name(option: Option) -> str:
    names = {bool: "True or False", int: "an integer", float: "a number", str: "a string",
             TOKENS: "a list of strings", CHARS: "a string or list of characters"}
    text = names.get(option.type, "a value")
    return text + " or None" if option.nullable else text


def _default(option: Option) -> Any:
    return list(option.default) if isinstance(option.default, tuple) else option.default


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, (tuple, list)) else value


# ---------------------------------------------------------------- what comes from the spec


def signature(first: Iterable[inspect.Parameter] = ()) -> inspect.Signature:
    """``train()``'s signature: ``first`` (the source), then every option, keyword-only."""
    notes = {bool: "bool", int: "int", float: "float", str: "str", TOKENS: "Iterable[str]",
             CHARS: "Iterable[str]", ANY: "Any"}
    params = list(first) + [
        inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default,
                          annotation=notes[o.type] + (" | None" if o.nullable else ""))
        for o in TRAIN_OPTIONS]
    return inspect.Signature(params, return_annotation="Tokenizer")


def saved_options(resolved: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``wordpieces.json`` keeps (under ``"training"``): what was learned with.

    ``train(corpus, **saved)`` learns again with them.
    """
    return {name: _plain(value) for name, value in resolved.items() if OPTIONS[name].saved}


def add_arguments(parser: argparse.ArgumentParser, groups: Iterable[str], *,
                  exclude: Iterable[str] = ()) -> None:
    """Add the flags of the options in ``groups`` to ``parser``, one argument group each.

    Defaults are ``argparse.SUPPRESS``: an option not given is absent from the namespace
    and ``train()``'s default applies (``--help`` prints it), so the two never differ.
    """
    left_out = set(exclude)
    for group in groups:
        section = parser.add_argument_group(*GROUP_TITLES[group])
        for option in TRAIN_OPTIONS:
            if option.group == group and option.cli and option.name not in left_out:
                _add_argument(section, option)


GROUP_TITLES = {  # group -> (title, description) in --help
    "vocabulary": ("vocabulary", None),
    "normalizer": ("how text is split into words", None),
    "top-down": ("top-down learner (TF Text's learn)",
                 "  It searches a count threshold: a substring seen at least that often "
                 "becomes a\n  token. On a small corpus even the lowest threshold may give "
                 "fewer tokens than\n  --vocab-size (a warning says so): lower "
                 "--lower-thresh, or --algorithm bottom-up."),
    "bottom-up": ("bottom-up and word-level learners", None),
    "counting": ("counting engine", None),
}


def _add_argument(section, option: Option) -> None:
    owners = ("" if option.algorithms == ALGORITHMS
              else f"{' and '.join(option.algorithms)}; ")
    text = f"{option.help} ({owners}default: {option.shown_default()})".replace("%", "%%")
    common: dict[str, Any] = {"default": argparse.SUPPRESS, "help": text,
                              "dest": option.name}
    if option.type is bool:
        section.add_argument(*option.flags, action=argparse.BooleanOptionalAction, **common)
        return
    if option.choices is not None:
        common["choices"] = option.choices
    else:
        common["metavar"] = option.metavar
    section.add_argument(*option.flags, type=_parser_of(option), **common)


def _parser_of(option: Option):
    """The argparse ``type`` for ``option``: the text checked as ``resolve`` checks it."""
    def parse(text: str):
        if option.type == TOKENS:
            return [t.strip() for t in text.split(",") if t.strip()]
        if option.type == CHARS:
            return list(text)
        if option.nullable and option.type is str and text == "none":
            return None
        value: Any
        try:
            value = option.type(text) if option.type in (int, float) else text
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {_type_name(option)}, not {text!r}") from None
        if option.minimum is not None and value < option.minimum:
            raise argparse.ArgumentTypeError(f"{text}: must be at least {option.minimum:g}")
        return value

    parse.__name__ = option.name  # argparse names the type in its errors
    return parse


def options_table() -> str:
    """The Markdown table of every option (docs/training.md holds it; a test compares)."""
    rows = ["| option | CLI | default | algorithms | what it does |", "|---|---|---|---|---|"]
    for o in TRAIN_OPTIONS:
        names = f"`{o.name}`" + "".join(f" (alias `{a}`)" for a in o.aliases)
        flags = " ".join(f"`{f}`" for f in o.flags) if o.cli else "global `--progress`"
        owners = "all" if o.algorithms == ALGORITHMS else ", ".join(o.algorithms)
        rows.append(f"| {names} | {flags} | {o.shown_default()} | {owners} | {o.help} |")
    return "\n".join(rows) + "\n"
