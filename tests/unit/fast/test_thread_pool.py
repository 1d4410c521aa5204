"""The native thread pool (``fast/_native/core/wp_threads.c``): fork, exit, data races.

Workers are kept parked between batches. A ``fork()`` child has none of them (only the
forking thread is copied), so the pool must start afresh there instead of waiting for
them; and parked workers must not keep the interpreter from exiting. Each case runs in a
fresh interpreter under a timeout, so that a hang fails the test instead of the run.
The reference is the same encoder's pure-Python twin (``encoder.reference``). The pool's
C alone also runs a stress harness (``thread_pool_harness.c``) under ThreadSanitizer.
Not handled here: results on every thread count (tests/differential/test_threads_native.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wordpieces.fast.backend import backend

pytestmark = [
    pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}"),
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's fork, /proc"),
]

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 120
# a batch of about 90,000 code points: big enough for 2 native threads (16384 each)
SETUP = textwrap.dedent("""
    import os, random, sys
    from wordpieces.tokenizer import Tokenizer
    VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "ab", "abc",
             "##a", "##b", "##c", "!", ".", "é", "ж", "##ж"]
    tok = Tokenizer.from_vocab(VOCAB, flavor="bert")
    tok.encode_ids("a")
    encoder = tok._seq.word_encoder
    assert type(encoder).__name__ == "NativeWordEncoder", type(encoder)
    rng = random.Random(5)
    texts = ["".join(rng.choice("abc !.éжΣ好") for _ in range(rng.randint(0, 30)))
             for _ in range(6000)]
    expected = [encoder.reference.encode_ids(t) for t in texts]

    def check(where):
        for n in (2, 3, 2):
            got = encoder.encode_batch_ids(texts, n)
            if got != expected:
                sys.exit(f"{where}: {n} threads: ids differ from the reference")
            flat = encoder.encode_batch_ids(texts, n, as_numpy=True)
            if flat.ids.tolist() != sum(expected, []):
                sys.exit(f"{where}: {n} threads: numpy ids differ from the reference")
""")


def _run(script: str) -> subprocess.CompletedProcess:
    """Run SETUP + script in a fresh interpreter, failing the test if it hangs."""
    env = {**os.environ, "WORDPIECES_BACKEND": "native"}
    try:
        return subprocess.run([sys.executable, "-c", SETUP + textwrap.dedent(script)],
                              cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the interpreter hung for {TIMEOUT} s: stderr {e.stderr!r}")


def test_a_forked_child_encodes_on_threads_after_its_parent_did():
    """os.fork after batches on 2 and 3 threads: the child starts workers of its own (it
    does not count on the parent's, which it has not got) and its batches give the
    reference's ids, and so do the parent's after."""
    done = _run("""
        check("parent")
        pid = os.fork()
        if pid == 0:
            try:
                check("child")
                if len(os.listdir("/proc/self/task")) != 3:
                    sys.exit("child: not 3 threads (itself + 2 workers)")
            except SystemExit as e:
                print(e, file=sys.stderr)
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"child exit code {os.waitstatus_to_exitcode(status)}")
        check("parent after fork")
    """)
    assert done.returncode == 0, done.stderr + done.stdout


def test_multiprocessing_fork_workers_encode_on_threads():
    """A fork-started multiprocessing pool (as Dask's and a DataLoader's workers are)
    made after the parent used threads: each worker's 2-thread batch is the reference's."""
    done = _run("""
        import multiprocessing
        check("parent")
        def child_ok(n):
            return encoder.encode_batch_ids(texts, n) == expected
        with multiprocessing.get_context("fork").Pool(2) as pool:
            oks = pool.map(child_ok, [2, 2, 3, 2])
        if oks != [True] * 4:
            sys.exit(f"children: {oks}")
    """)
    assert done.returncode == 0, done.stderr


def test_the_interpreter_exits_with_workers_parked():
    """A script that ran batches on 2 and 3 threads exits at once, with status 0."""
    done = _run("""
        check("main")
        print("done")
    """)
    assert (done.returncode, done.stdout) == (0, "done\n"), done.stderr


def test_workers_are_kept_between_batches():
    """After one batch on 2 threads the process keeps one more thread (the parked worker),
    and 20 more batches on 2 threads start no other."""
    done = _run("""
        def threads_now():
            return len(os.listdir("/proc/self/task"))
        before = threads_now()
        encoder.encode_batch_ids(texts, 2)
        after_one = threads_now()
        for _ in range(20):
            encoder.encode_batch_ids(texts, 2)
        print(before, after_one, threads_now())
    """)
    assert done.returncode == 0, done.stderr
    before, after_one, after_many = map(int, done.stdout.split())
    assert (after_one - before, after_many - before) == (1, 1)


def _compiler_with_tsan(tmp_path: Path) -> str | None:
    """A C compiler on PATH that builds and links a ThreadSanitizer program, if any."""
    probe = tmp_path / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc) and subprocess.run(
                [cc, "-fsanitize=thread", "-pthread", str(probe), "-o", str(tmp_path / "probe")],
                capture_output=True).returncode == 0:
            return cc
    return None


def test_the_pool_alone_has_no_data_race_under_thread_sanitizer(tmp_path):
    """wp_threads.c with a stress harness (concurrent callers, pool growth, chunks handed
    out by wp_progress), built with -fsanitize=thread: no race reported, every result right."""
    cc = _compiler_with_tsan(tmp_path)
    if cc is None:
        pytest.skip("no C compiler with ThreadSanitizer")
    core = REPO / "wordpieces" / "fast" / "_native" / "core"
    program = tmp_path / "harness"
    built = subprocess.run([cc, "-O1", "-g", "-std=c99", "-pthread", "-fsanitize=thread",
                            f"-I{core}", str(Path(__file__).with_name("thread_pool_harness.c")),
                            str(core / "wp_threads.c"), "-o", str(program)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(program)], capture_output=True, text=True, timeout=TIMEOUT,
                         env={**os.environ, "TSAN_OPTIONS": "halt_on_error=1"})
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "ok\n", "")
