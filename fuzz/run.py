"""Run one fuzz target under atheris: ``python -m fuzz.run TARGET [--runs N | --seconds S]``.

The target's seed corpus (``fuzz/corpus/TARGET``, written by ``python -m fuzz.seeds``) is
copied to a scratch folder that the fuzzer grows, so a run never changes the repository;
``--keep`` adds the inputs it found to the seed corpus instead. A crashing input is
written to ``fuzz/findings/TARGET/`` (commit it: the tests replay every file there).
``--all`` runs every target in turn (the CI smoke run). A slow input (``--timeout``
seconds) counts as a crash: that is how a regular expression that backtracks is caught.

Not handled here: the targets themselves (``fuzz.targets``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def corpus_dir(target: str) -> str:
    return os.path.join(HERE, "corpus", target)


def findings_dir(target: str) -> str:
    return os.path.join(HERE, "findings", target)


def fuzz_in_this_process(target: str, libfuzzer_args: list[str]) -> None:
    """Instrument the package, then hand control to libFuzzer (does not return)."""
    import atheris

    with atheris.instrument_imports():
        from fuzz.targets import TARGETS
    atheris.Setup([sys.argv[0], *libfuzzer_args], TARGETS[target])
    atheris.Fuzz()


def run_target(target: str, runs: int | None, seconds: int | None, timeout: int,
               keep: bool) -> int:
    """Fuzz ``target`` in a child process; return its exit status (0: nothing found)."""
    os.makedirs(findings_dir(target), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix=f"fuzz-{target}-")
    work = corpus_dir(target) if keep else os.path.join(scratch, "corpus")
    if not keep:
        shutil.copytree(corpus_dir(target), work)
    args = [work, f"-timeout={timeout}", "-rss_limit_mb=4096", "-max_len=65536",
            f"-artifact_prefix={findings_dir(target)}{os.sep}", "-print_final_stats=1"]
    args += [f"-runs={runs}"] if runs is not None else []
    args += [f"-max_total_time={seconds}"] if seconds is not None else []
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(HERE)!r}); "
            f"from fuzz.run import fuzz_in_this_process; "
            f"fuzz_in_this_process({target!r}, {args!r})")
    try:
        return subprocess.run([sys.executable, "-c", code], cwd=scratch).returncode
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    from fuzz.targets import TARGETS

    parser = argparse.ArgumentParser(prog="python -m fuzz.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", nargs="?", choices=sorted(TARGETS))
    parser.add_argument("--all", action="store_true", help="run every target in turn")
    parser.add_argument("--runs", type=int, help="stop after N inputs")
    parser.add_argument("--seconds", type=int, help="stop after S seconds (per target)")
    parser.add_argument("--timeout", type=int, default=10,
                        help="an input slower than this many seconds is a finding")
    parser.add_argument("--keep", action="store_true",
                        help="grow fuzz/corpus/TARGET with what the run finds")
    args = parser.parse_args(argv)
    if args.all == (args.target is not None):
        parser.error("give one TARGET or --all")
    if args.runs is None and args.seconds is None:
        parser.error("give --runs N or --seconds S")
    failed = []
    for target in sorted(TARGETS) if args.all else [args.target]:
        print(f"== fuzz {target}", flush=True)
        if run_target(target, args.runs, args.seconds, args.timeout, args.keep) != 0:
            failed.append(target)
    if failed:
        print(f"fuzz: findings in {', '.join(failed)} (see fuzz/findings/)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
