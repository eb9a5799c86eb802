"""Issue 31: every file the project reads is read with bounds, and a results.csv is believed only
as far as the replay of the game's decisions goes (items 3, 5, 7 and 9).  Each hostile file gets
a one-line error naming the file and what is wrong, never a traceback, a RecursionError or
gigabytes of memory.  This suite also runs on the pure-Python build (Makefile PURE_TESTS)."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dune_env.harness import run_benchmark
from dune_env.harness.cli import main as bench_main
from dune_env.harness.play.luck import VALUE_FILE, LuckModelError, ValueModel
from dune_env.harness.runs.outputs import OutputError, prepare_out_dir, read_run_record
from dune_env.harness.suite import prepare_suite_dir
from dune_env.replay.cli import main as replay_main

from .harness.run_folder import Rows, copy_run, read_results, write_results

POLICIES = ["random", "economic"]
RUN: dict[str, Any] = {"num_players": 3, "games": 9, "seed": 4}


# --- results.csv and decisions.jsonl on --resume (item 3) --------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    run_benchmark(POLICIES, out_dir=out, plots=False, **RUN)
    return out


def _resume(out: Path) -> None:
    run_benchmark(POLICIES, out_dir=out, plots=False, resume=True, **RUN)


def _game(rows: Rows, kind: str) -> list[dict[str, str]]:
    game = next(r["game"] for r in rows if r["win_kind"] == kind)
    return [r for r in rows if r["game"] == game]


def _move_the_solo_win(rows: Rows) -> None:
    """The winner and a loser swap their won and reward: still one solo winner."""
    seats = _game(rows, "solo")
    winner = next(r for r in seats if r["won"] == "1")
    loser = next(r for r in seats if r["won"] == "0")
    for key in ("won", "reward"):
        winner[key], loser[key] = loser[key], winner[key]


def _win_to_nobody(rows: Rows) -> None:
    for row in _game(rows, "solo"):
        row["won"], row["reward"], row["win_kind"] = "0", "-1.0", "none"


def _nobody_to_a_win(rows: Rows) -> None:
    seats = _game(rows, "none")
    for row in seats:
        row["win_kind"] = "solo"
    seats[0]["won"], seats[0]["reward"] = "1", "1.0"


def _rounds(rows: Rows) -> None:
    for row in _game(rows, "solo"):
        row["rounds"] = "999999"


@pytest.mark.parametrize(
    ("forge", "field"),
    [
        (_move_the_solo_win, "won"),
        (_win_to_nobody, "win_kind"),
        (_nobody_to_a_win, "won"),
        (_rounds, "rounds"),
    ],
    ids=["solo-win-moved", "win-to-nobody", "nobody-to-a-win", "rounds-999999"],
)
def test_resume_refuses_a_consistent_forgery(
    finished_run: Path, tmp_path: Path, forge: Callable[[Rows], None], field: str
) -> None:
    """Rows that agree with each other and with END-7 but not with the game's decisions: the
    resume replays each game and names the first field that differs (it accepted them)."""
    out = copy_run(finished_run, tmp_path)
    fieldnames, rows = read_results(out)
    forge(rows)
    write_results(out, fieldnames, rows)
    before = (out / "summary.json").read_text()
    with pytest.raises(OutputError, match=rf"game \d+, seat \d+: {field} is .* but the game's "):
        _resume(out)
    assert (out / "summary.json").read_text() == before


def test_resume_refuses_rows_without_their_decisions(finished_run: Path, tmp_path: Path) -> None:
    out = copy_run(finished_run, tmp_path)
    (out / "decisions.jsonl").unlink()
    with pytest.raises(OutputError, match="no decisions.jsonl to replay them"):
        _resume(out)
    out = copy_run(finished_run, tmp_path / "b")
    lines = (out / "decisions.jsonl").read_text().splitlines(keepends=True)
    (out / "decisions.jsonl").write_text("".join(lines[1:]))
    with pytest.raises(OutputError, match="game 0 has no line in decisions.jsonl"):
        _resume(out)


def test_resume_refuses_decisions_that_do_not_replay(finished_run: Path, tmp_path: Path) -> None:
    out = copy_run(finished_run, tmp_path)
    lines = (out / "decisions.jsonl").read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    record["options"] = record["options"][:-3]
    lines[2] = json.dumps(record) + "\n"
    (out / "decisions.jsonl").write_text("".join(lines))
    with pytest.raises(OutputError, match="game 2 does not replay: the game is not over"):
        _resume(out)


def test_an_untouched_run_resumes_and_keeps_one_line_a_game(
    finished_run: Path, tmp_path: Path
) -> None:
    out = copy_run(finished_run, tmp_path)
    lines = (out / "results.csv").read_text().splitlines(keepends=True)
    (out / "results.csv").write_text("".join(lines[:-2]))  # the last game cut short
    result = run_benchmark(POLICIES, out_dir=out, plots=False, resume=True, **RUN)
    assert result.summary["games"] == RUN["games"]
    assert (out / "results.csv").read_text() == (finished_run / "results.csv").read_text()
    decisions = (out / "decisions.jsonl").read_text().splitlines()
    assert sorted(json.loads(d)["game"] for d in decisions) == list(range(RUN["games"]))


def test_a_results_line_of_megabytes_is_refused_unread(finished_run: Path, tmp_path: Path) -> None:
    """A 20 MB line (the issue's was 200 MB and took 2 GB) is refused at the line bound."""
    out = copy_run(finished_run, tmp_path)
    with (out / "results.csv").open("a") as handle:
        handle.write("1," + "9" * 20_000_000 + "\n")
    with pytest.raises(OutputError, match=r"results\.csv (line \d+ is longer than|has \d+ bytes)"):
        _resume(out)


def test_a_decisions_line_of_megabytes_is_refused(finished_run: Path, tmp_path: Path) -> None:
    out = copy_run(finished_run, tmp_path)
    with (out / "decisions.jsonl").open("a") as handle:
        handle.write('{"game": 1, "seed": 1, "options": [' + "1," * 2_000_000 + "1]}\n")
    with pytest.raises(OutputError, match=r"decisions\.jsonl (line \d+ is longer|has \d+ bytes)"):
        _resume(out)


@pytest.mark.parametrize(
    "text",
    ["[1, 2, 3]", '"run"', "[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000],
    ids=["list", "string", "deep-list", "deep-object"],
)
def test_run_records_that_are_not_objects_are_one_line_errors(
    finished_run: Path, tmp_path: Path, text: str
) -> None:
    """run.json / suite_run.json that is a list or nested 100,000 deep: an OutputError naming
    the file (a traceback: AttributeError or RecursionError)."""
    out = copy_run(finished_run, tmp_path)
    (out / "run.json").write_text(text)
    with pytest.raises(OutputError, match=r"run\.json (holds a JSON|is nested too deeply)"):
        _resume(out)
    (out / "suite_run.json").write_text(text)
    with pytest.raises(OutputError, match=r"suite_run\.json (holds a JSON|is nested too deeply)"):
        prepare_suite_dir(out, ["random"], True, 0, resume=True)


def test_a_run_record_of_megabytes_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text('{"a": "' + "x" * 3_000_000 + '"}')
    with pytest.raises(OutputError, match=r"run\.json has more than \d+ bytes"):
        read_run_record(tmp_path, "run.json", "a benchmark run")


def test_resume_refuses_a_run_folder_that_is_a_symbolic_link(
    finished_run: Path, tmp_path: Path
) -> None:
    """Item 7: a run (a suite's line-up) folder that is a link would be written through,
    outside --out; the suite's resume looks at every folder below it."""
    target = copy_run(finished_run, tmp_path / "elsewhere")
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    with pytest.raises(OutputError, match="is a symbolic link; refusing to write through it"):
        prepare_out_dir(link, {}, resume=True)
    suite = tmp_path / "suite"
    (suite / "4p").mkdir(parents=True)
    (suite / "suite_run.json").write_text("{}")
    (suite / "4p" / "lineup0").symlink_to(target, target_is_directory=True)
    before = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}
    with pytest.raises(OutputError, match=r"lineup0 is a symbolic link; refusing to write"):
        prepare_suite_dir(suite, ["random"], True, 0, resume=True)
    assert {p.name: p.stat().st_mtime_ns for p in target.iterdir()} == before


# --- --luck-model files (item 5) -------------------------------------------------------------


def _npz(path: Path, arrays: dict[str, Any]) -> Path:
    with path.open("wb") as handle:
        np.savez_compressed(handle, **arrays)
    return path


def _shipped() -> dict[str, Any]:
    with np.load(VALUE_FILE, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    header = repr({"descr": dtype, "fortran_order": False, "shape": shape}).encode()
    header += b" " * (63 - (len(header) + 10) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header


def _weights(kind: str) -> dict[str, Any]:
    arrays = _shipped()
    if kind == "nan":
        arrays["w1"] = arrays["w1"].copy()
        arrays["w1"][3, 3] = np.nan
    elif kind == "inf":
        arrays["b0"] = arrays["b0"].copy()
        arrays["b0"][0] = np.inf
    elif kind == "past-float32":
        arrays["w2"] = arrays["w2"].astype(np.float64) * 1e300
    return arrays


@pytest.mark.parametrize("kind", ["nan", "inf", "past-float32"])
def test_a_value_model_with_weights_that_are_not_finite_is_refused(
    tmp_path: Path, kind: str
) -> None:
    """NaN or infinite weights were accepted (NaN luck in results; the run could not resume)."""
    path = _npz(tmp_path / "model.npz", _weights(kind))
    with pytest.raises(LuckModelError, match="not finite numbers"):
        ValueModel.load(path)


def _bomb(path: Path) -> Path:
    """A zip member of 200 MB of zeros (a few hundred KB on disk)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("info.npy", b"")
        with archive.open("w0.npy", "w", force_zip64=True) as member:
            member.write(_npy_header((50_000_000,)))
            zeros = bytes(1 << 20)
            for _ in range(200):
                member.write(zeros)
    return path


def _archive(path: Path, arrays: dict[str, np.ndarray], extra: dict[str, bytes]) -> Path:
    """An .npz-like archive of `arrays` (np.save, pickles allowed) plus raw `extra` members."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array)
            archive.writestr(f"{name}.npy", buffer.getvalue())
        for name, data in extra.items():
            archive.writestr(name, data)
    return path


def _huge_shape(path: Path) -> Path:
    """A small member whose .npy header declares 10**12 values."""
    huge = _npy_header((1_000_000, 1_000_000)) + b"\0" * 64
    return _archive(path, _shipped(), {"w3.npy": huge})


def _truncated(path: Path) -> Path:
    path.write_bytes(VALUE_FILE.read_bytes()[: VALUE_FILE.stat().st_size // 2])
    return path


def _empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _nested(path: Path) -> Path:
    """The shipped model inside another archive, in a folder."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/luck_value.npz", VALUE_FILE.read_bytes())
    return path


def _pickled(path: Path) -> Path:
    arrays = {**_shipped(), "w1": np.array([{"x": 1}], dtype=object)}
    return _archive(path, arrays, {})


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_bomb, r"would take \d+ bytes, more than"),
        (_huge_shape, r"w3\.npy (has the shape|declares \d+ values)"),
        (_truncated, "not a value-model file"),
        (_empty, "not a value-model file"),
        (_nested, "not a model array"),
        (_pickled, "holds Python objects"),
    ],
    ids=["zip-bomb", "huge-declared-shape", "truncated", "empty", "nested", "pickled"],
)
def test_a_hostile_value_model_file_is_one_line_refusal(
    tmp_path: Path, make: Callable[[Path], Path], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The zip bomb took 2.9 GB before it was refused; the others gave tracebacks.  Through
    dune-bench: exit 2 and one line naming the file."""
    import tracemalloc

    path = make(tmp_path / "model.npz")
    tracemalloc.start()
    with pytest.raises(LuckModelError, match=message):
        ValueModel.load(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 << 20
    args = ["--policies", "random", "economic", "--players", "3", "--games", "6", "--duplicate"]
    args += ["--luck-adjust", "2", "--luck-model", str(path), "--out", str(tmp_path / "o")]
    assert bench_main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err, err


def test_the_shipped_value_model_still_loads() -> None:
    model = ValueModel.load()
    assert model.input_size > 0 and all(np.isfinite(w).all() for w, _ in model.layers)


# --- replay files and dune-replay (item 9) -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"format": "dune-env-replay", "config": ' + "[" * 50_000 + "]" * 50_000 + "}", "deeply"),
        ("[1, 2]", "holds a JSON object, not list"),
        ("", "is not JSON"),
    ],
    ids=["deep-list", "deep-config", "list", "empty"],
)
def test_a_hostile_replay_file_is_one_line(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "replay.json"
    path.write_text(text)
    assert replay_main([str(path), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def _record_with(tmp_path: Path, **changes: Any) -> Path:
    from dune_env.replay.record import play_policies

    record = {**play_policies(["random"] * 3, seed=2).to_dict(), **changes}
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seed": 2**70}, "outside 0..2**64-1"),
        ({"options": [0] * 30_000}, "more than a game has"),
        ({"seed": None, "chance": [7, 7, 7]}, "does not replay"),
        ({"config": [1, 2]}, "config must be a JSON object"),
    ],
    ids=["seed-2**70", "30000-options", "impossible-chance", "config-a-list"],
)
def test_a_replay_record_out_of_bounds_is_one_line(
    tmp_path: Path, changes: dict[str, Any], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record_with(tmp_path, **changes)
    assert replay_main([str(path), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("seed", [str(2**70), "-1"])
def test_dune_replay_seed_outside_64_bits_is_one_line(
    tmp_path: Path, seed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dune-replay --seed 2**70` raised ValueError from the engine (a traceback)."""
    args = ["--policies", "random", "random", "random", "--seed", seed]
    assert replay_main([*args, "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "outside 0..2**64-1" in err, err


def test_a_benchmark_game_replays_from_its_recorded_decisions(
    finished_run: Path, tmp_path: Path
) -> None:
    """dune-replay --benchmark takes a game's decisions from decisions.jsonl: no policy is
    loaded (a module:attr line-up needs no trust), and the replay matches results.csv."""
    from dune_env.replay.record import benchmark_record

    out = copy_run(finished_run, tmp_path)
    record = benchmark_record(out, 4)
    line = json.loads((out / "decisions.jsonl").read_text().splitlines()[4])
    assert line["game"] == 4 and record.options == tuple(line["options"])
