"""Search distillation (training/distill.py, training/search_labels.py; issue 35): labelled
games, their files, the loss on the search's statistics, and a run that resumes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.search_labels import (  # noqa: E402
    Chunk,
    Labels,
    collect_round,
    load_round,
    play_labelled_game,
)

TEACHER = "mcts-strategist-4"
LINEUP = ("strategist", "economic", "aggressive")


def chunk(**changes: object) -> Chunk:
    base = Chunk(4, TEACHER, "", LINEUP, 1, 3, 0, (), False)
    return Chunk(**{**base.__dict__, **changes})  # type: ignore[arg-type]


def test_a_labelled_game_labels_every_learner_decision_with_the_search() -> None:
    """The teacher playing the learner's seat: one row per decision of that seat with a
    choice, its choice legal, the strategist's choice among the candidates of a searched one,
    every candidate visited, the target a distribution whose largest share is the
    choice."""
    labels = play_labelled_game(chunk(), game=1)
    assert labels.size > 30
    rows = np.arange(labels.size)
    masks, targets = labels.masks(rows), labels.targets(rows, visit_share=0.5)
    assert masks[rows, labels.choice].all()
    assert (masks.sum(axis=1) > 1).all()  # forced decisions are not kept
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-6)
    assert (targets[~masks] == 0).all()
    assert (targets.argmax(axis=1) == labels.choice).all()
    searched = labels.preferred >= 0
    assert searched.sum() > labels.size // 2
    for row in np.flatnonzero(searched):
        cand = labels.cand[labels.cand_ptr[row] : labels.cand_ptr[row + 1]]
        visits = labels.visits[labels.cand_ptr[row] : labels.cand_ptr[row + 1]]
        assert labels.preferred[row] in cand and labels.choice[row] in cand
        assert visits.min() >= 1 and visits.sum() >= 4  # every candidate tried, the budget spent
    assert set(np.unique(labels.returns)) <= {-1.0, 1.0}


def test_the_student_plays_its_own_choices_and_the_teacher_only_labels(tmp_path: Path) -> None:
    """DAgger: with a student, the learner seat plays the network's greedy choice (so the
    labels depart from what was played), and the game is the same whoever labels it."""
    from dune_env.policies.registry import CHECKPOINT_DIR
    from dune_env.policies.weights import WeightsPolicy
    from training.search_labels import student_action

    path = str(CHECKPOINT_DIR / "bc_4p.safetensors")
    student = WeightsPolicy(path)
    labels = play_labelled_game(chunk(student=path, round_=1), game=0, student=student)
    played = np.array(
        [
            student_action(student, labels.obs[i], labels.legal[s:e])
            for i, (s, e) in enumerate(
                zip(labels.legal_ptr[:-1], labels.legal_ptr[1:], strict=True)
            )
        ]
    )
    assert (played != labels.choice).any()  # the student departs from the search somewhere
    again = play_labelled_game(chunk(student=path, round_=1, teacher="strategist"), 0, student)
    assert np.array_equal(again.obs, labels.obs)  # the same game: the student's moves


def test_chunks_resume_and_do_not_depend_on_the_workers(tmp_path: Path) -> None:
    """A round's chunk files, played in one process or two, hold the same games; a missing
    chunk is played again on a rerun, the others are kept."""
    template = chunk()
    collect_round(tmp_path / "one", template, 2, 1, 1, workers=1)
    collect_round(tmp_path / "two", template, 2, 1, 1, workers=2)
    for heldout in (False, True):
        one, two = load_round(tmp_path / "one", heldout), load_round(tmp_path / "two", heldout)
        for field, a, b in zip(Labels._fields, one, two, strict=True):
            assert np.array_equal(a, b), field
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [
        "heldout_0000.npz",
        "train_0000.npz",
        "train_0001.npz",
    ]
    kept = (tmp_path / "one" / "train_0000.npz").stat().st_mtime_ns
    (tmp_path / "one" / "train_0001.npz").unlink()
    collect_round(tmp_path / "one", template, 2, 1, 1, workers=1)
    assert (tmp_path / "one" / "train_0000.npz").stat().st_mtime_ns == kept
    again = load_round(tmp_path / "one", heldout=False)
    assert np.array_equal(again.obs, load_round(tmp_path / "two", heldout=False).obs)


def test_the_distillation_loss_on_the_choice_alone_is_the_cloning_loss(
    one_torch_thread: None,
) -> None:
    """With visit_share 0 the target is the teacher's choice: the cross-entropy is the
    cloning loss's negative log-likelihood (`training.cloning`, one loss)."""
    import torch

    from training.cloning import distill_fit, masked_log_policy
    from training.distill import DistillConfig, build_env, build_model

    labels = play_labelled_game(chunk(), game=2)
    cfg = DistillConfig(n_envs=1, envs_per_process=2, init_weights="bc-4p", curve_games=0)
    env = build_env(cfg, 0)
    model = build_model(cfg, env)
    env.close()
    rows = np.arange(labels.size)
    obs = torch.as_tensor(labels.obs, dtype=torch.float32)
    with torch.no_grad():
        _, log_prob, _ = model.policy.evaluate_actions(
            obs, torch.as_tensor(labels.choice.astype(np.int64)), action_masks=labels.masks(rows)
        )
        log_pi, _ = masked_log_policy(model.policy, obs, torch.as_tensor(labels.masks(rows)))
    fit = distill_fit(model.policy, labels, visit_share=0.0)
    assert fit["cross_entropy"] == pytest.approx(float(-log_prob.mean()), rel=1e-4)
    assert fit["agreement"] == pytest.approx(
        float((log_pi.argmax(dim=1).numpy() == labels.choice).mean())
    )


TINY = {
    "teacher": TEACHER,
    "init_weights": "bc-4p",
    "games_per_round": 2,
    "heldout_games": 1,
    "chunk_games": 1,
    "workers": 1,
    "epochs": 2,
    "curve_games": 0,
    "n_envs": 1,
    "envs_per_process": 2,
}


def _final(run_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(run_dir / "final_model.safetensors"))


def test_a_distillation_given_more_rounds_resumes_after_its_last_fitted_one(
    tmp_path: Path, one_torch_thread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished run of one round, rerun with two, plays and fits only the second (its games
    played by the student the first left) and ends with the weights of a run of two rounds
    from the start; rerun again, it is finished."""
    import training.distill as recipe
    from training.distill import DistillConfig, train

    whole = DistillConfig(out_dir=str(tmp_path / "whole"), rounds=2, **TINY)
    train(whole, quiet=True)
    cut = DistillConfig(out_dir=str(tmp_path / "cut"), rounds=1, **TINY)
    train(cut, quiet=True)
    fits: list[int] = []
    real_fit = recipe.fit_round

    def counted(cfg: DistillConfig, model: object, files: object, round_: int) -> object:
        fits.append(round_)
        return real_fit(cfg, model, files, round_)  # type: ignore[arg-type]

    monkeypatch.setattr(recipe, "fit_round", counted)
    more = DistillConfig(out_dir=str(tmp_path / "cut"), rounds=2, **TINY)
    assert not recipe.Distill(more).warm_start_finished()
    train(more, quiet=True)
    assert fits == [1]
    resumed, uninterrupted = _final(more.run_dir), _final(whole.run_dir)
    for name, value in uninterrupted.items():
        assert np.array_equal(resumed[name], value), name
    assert recipe.Distill(more).warm_start_finished()
    stats = json.loads((more.run_dir / "rounds" / "round1.json").read_text())
    assert stats["samples"] > stats["start"]["decisions"]  # rounds 0 and 1 fitted together


def test_saved_rounds_refuse_other_settings(tmp_path: Path) -> None:
    from training.checkpoints import ResumeError
    from training.distill import DistillConfig, RoundFiles, check_round_settings

    cfg = DistillConfig(out_dir=str(tmp_path), **TINY)
    files = RoundFiles(cfg.run_dir)
    check_round_settings(cfg, files)
    other = DistillConfig(out_dir=str(tmp_path), **{**TINY, "visit_share": 0.25})
    with pytest.raises(ResumeError, match="visit_share=0.5"):
        check_round_settings(other, files)
    check_round_settings(DistillConfig(out_dir=str(tmp_path), **{**TINY, "rounds": 9}), files)


def test_a_student_opponent_is_one_more_learner_seat() -> None:
    """`student` among the opponents seats one more learner, whose decisions are labelled too."""
    from training.search_labels import STUDENT, seats_of

    template = chunk(opponents=(*LINEUP, STUDENT))
    counts = []
    for game in range(8):
        names, learner = seats_of(template, game, seed=game)
        assert learner == {seat for seat, name in enumerate(names) if not name}
        assert game % 4 in learner and STUDENT not in names
        counts.append(len(learner))
    assert set(counts) == {1, 2}
    labels = play_labelled_game(chunk(opponents=(STUDENT,), teacher="strategist"), game=0)
    alone = play_labelled_game(chunk(teacher="strategist"), game=0)
    assert labels.size > 3 * alone.size  # every seat is a learner's


def test_the_anchor_term_is_the_kl_divergence_from_the_anchors_policy(
    tmp_path: Path, one_torch_thread: None
) -> None:
    """AnchoredPPO's term: 0 (and full agreement) against its own weights as the anchor,
    positive against another network, and it pulls the policy towards the anchor."""
    import torch

    from dune_env.policies.registry import CHECKPOINT_DIR
    from dune_env.vector import DuneVecEnv
    from training.kickstart import AnchoredPPO

    venv = DuneVecEnv(4, learner="rotate", num_players=4, opponents="economic")
    venv.seed(0)
    model = AnchoredPPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [256, 256]},
    )  # fmt: skip
    model.set_anchor(str(CHECKPOINT_DIR / "bc_4p.safetensors"))
    model.learn(16)  # one rollout in the buffer (its update at lambda 0 leaves the policy)
    (batch,) = model.rollout_buffer.get(None)
    actions = batch.actions.long().flatten()

    def term(anchor: Path) -> tuple[float, float]:
        model.set_anchor(str(anchor))
        with torch.no_grad():
            dist = model.policy.get_distribution(
                batch.observations, action_masks=batch.action_masks
            )
            kl, agreement = model.teacher_term(dist, batch, actions)
        return float(kl), agreement

    from dune_env.policies.weights import export_policy

    export_policy(model, tmp_path / "self")
    kl, agreement = term(tmp_path / "self.safetensors")
    assert kl == pytest.approx(0.0, abs=1e-5) and agreement == 1.0
    bc = CHECKPOINT_DIR / "bc_4p.safetensors"
    before, _ = term(bc)
    assert before > 0.1
    model.set_anchor(str(bc))
    for _ in range(20):
        dist = model.policy.get_distribution(batch.observations, action_masks=batch.action_masks)
        kl_term, _ = model.teacher_term(dist, batch, actions)
        model.policy.optimizer.zero_grad()
        kl_term.backward()
        model.policy.optimizer.step()
    after, _ = term(bc)
    assert after < before
    model.save(tmp_path / "model.zip")  # the anchor is named, not pickled
    assert AnchoredPPO.load(tmp_path / "model.zip").anchor is None
    venv.close()


def test_ppo_after_the_rounds_anchored_to_the_student_resumes(
    tmp_path: Path, one_torch_thread: None
) -> None:
    """The recipe with PPO after its round: AnchoredPPO from the student's weights, anchored
    to the student's file; a rerun with more steps resumes PPO's checkpoint (no round again)."""
    import training.distill as recipe
    from training.distill import DistillConfig, train
    from training.kickstart import AnchoredPPO

    settings = {
        **TINY, "rounds": 1, "total_timesteps": 64, "n_steps": 16, "batch_size": 32,
        "n_epochs": 1, "anchor_coef_start": 1.0, "anchor_coef_end": 0.5, "p_self": 0.5,
        "p_heuristic": 0.5, "snapshot_interval": 32, "checkpoint_interval": 32,
    }  # fmt: skip
    cfg = DistillConfig(out_dir=str(tmp_path), sharpen=3.0, **settings)
    assert recipe.algorithm(cfg) is AnchoredPPO
    train(cfg, quiet=True)
    from safetensors.numpy import load_file

    files = recipe.RoundFiles(cfg.run_dir)
    start, student = load_file(str(files.ppo_start)), load_file(str(files.student(0)))
    assert np.allclose(start["action_net.weight"], 3.0 * student["action_net.weight"])
    assert np.array_equal(start["mlp_extractor.policy_net.0.weight"],
                          student["mlp_extractor.policy_net.0.weight"])  # fmt: skip
    first = json.loads((cfg.run_dir / "training.json").read_text())
    assert first["num_timesteps"] >= 64
    more = DistillConfig(out_dir=str(tmp_path), sharpen=3.0, **{**settings, "total_timesteps": 128})
    train(more, quiet=True)
    second = json.loads((more.run_dir / "training.json").read_text())
    assert second["num_timesteps"] >= 128 and second["learner_steps_this_session"] < 128
    assert list((cfg.run_dir / "pool").glob("snapshot_*.safetensors"))


SMOKE = [
    "--config", "configs/distill_4p.yaml", "--rounds", "1", "--games-per-round", "2",
    "--heldout-games", "1", "--chunk-games", "1", "--workers", "1", "--epochs", "1",
    "--curve-games", "0", "--net-arch", "32,32", "--envs-per-process", "2",
]  # fmt: skip


def test_a_smoke_run_of_the_shipped_config_from_the_command_line(
    tmp_path: Path, one_torch_thread: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m training.distill --config configs/distill_4p.yaml` cut to one round of two
    labelled games (the config's teacher, residual-4p, and its opponents): the round's files,
    the learning curve's line, the shipped model the round's student (no PPO configured), a
    model the harness plays, and a rerun that says it is finished without fitting again."""
    from safetensors.numpy import load_file

    from dune_env.harness import run_benchmark
    from training.distill import RoundFiles, main

    assert main([*SMOKE, "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    run = tmp_path / "distill_4p_seed0"
    model = run / "final_model.safetensors"
    assert "distill: trained distill_4p_seed0" in out and f"the model: {model}" in out
    files = RoundFiles(run)
    assert files.fitted() == 1
    assert sorted(p.name for p in files.data_of(0).iterdir()) == [
        "heldout_0000.npz", "train_0000.npz", "train_0001.npz",
    ]  # fmt: skip
    (line,) = [json.loads(text) for text in files.curves.read_text().splitlines()]
    assert line["round"] == 0 and line["decisions"] > 20 and line["lineups"] == {}
    assert 0.0 <= line["heldout_agreement"] <= 1.0
    shipped, student = load_file(str(model)), load_file(str(files.student(0)))
    assert shipped.keys() == student.keys()
    assert all(np.array_equal(shipped[k], student[k]) for k in student)
    result = run_benchmark(
        [str(model), "strategist", "economic", "aggressive"], num_players=4, games=4, plots=False
    )
    assert not result.failures and len(result.rows) == 16
    fitted_before = files.weights(0).stat().st_mtime_ns
    assert main([*SMOKE, "--out-dir", str(tmp_path)]) == 0
    assert "is finished" in capsys.readouterr().out
    assert files.weights(0).stat().st_mtime_ns == fitted_before


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"teacher": "nosuch"}, r"teacher='nosuch' is not a built-in policy or a shipped model"),
        ({"opponents": ("strategist", "economicc")}, r"unknown: \['economicc'\]"),
        ({"workers": 0}, r"workers=0 must be >= 1"),
        ({"visit_share": 1.5}, r"visit_share=1.5 must be in \[0, 1\]"),
        (
            {"curve_lineups": ("strategist economicc",)},
            r"curve_lineups: .*unknown: \['economicc'\]",
        ),
        ({"kind_weights": {"ALLY_ANSWER": -1.0}}, r"kind_weights: .*must be >= 0"),
        ({"kind_weights": {"ALLY": 2.0}}, r"kind_weights: unknown kinds \['ALLY'\]"),
        ({"learner_seats": 4}, r"learner_seats=4 must be 1\.\.3"),
        ({"sharpen": 0.0}, r"sharpen=0.0 must be > 0"),
    ],
)
def test_a_bad_setting_is_refused_by_name(setting: dict[str, object], message: str) -> None:
    """Every setting the rounds would trip over later is refused when the config is built,
    naming the setting and what would be right."""
    from training.config_utils import ConfigKeyError
    from training.distill import DistillConfig

    with pytest.raises(ConfigKeyError, match=message):
        DistillConfig(**setting)


def test_a_bad_setting_on_the_command_line_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.distill import main

    assert main([*SMOKE, "--teacher", "strategist-v2", "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("distill: ") and "teacher='strategist-v2'" in err
    assert "\n" not in err and not (tmp_path / "distill_4p_seed0").exists()
