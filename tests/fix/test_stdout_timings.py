"""Verification tells the program's measurements from its results (issue 44, shape 7): a number named like a timing
or carrying a unit of time is not compared, a progress bar is left out, and the rest is compared as before. The
lines are the shapes transformers' Trainer, tqdm and hand-written loops print."""

from tdiag.analyzer.stdout_match import is_timing_name, match

TRAINER = ("{'loss': '2.4725', 'grad_norm': '1.917', 'learning_rate': '5e-05', 'epoch': '2'}\n"
           "{'train_runtime': '25.92', 'train_samples_per_second': '4.937', 'train_steps_per_second': '0.617', "
           "'train_loss': '2.0444', 'epoch': '2'}\n")


def test_trainer_timings_are_set_apart_and_the_loss_is_compared():
    faster = TRAINER.replace("25.92", "11.8").replace("4.937", "10.85").replace("0.617", "1.356")
    m = match(TRAINER, faster)
    assert m.same and not m.identical
    assert m.timing_lines == ["line 2: train_runtime 25.92 -> 11.8, train_samples_per_second 4.937 -> 10.85, "
                              "train_steps_per_second 0.617 -> 1.356"]
    assert all(d.startswith("treated as timings") for d in m.number_differences)
    assert not match(TRAINER, faster.replace("'train_loss': '2.0444'", "'train_loss': '2.0500'")).same
    assert not match(TRAINER, faster.replace("'loss': '2.4725'", "'loss': '2.4800'")).same


def test_units_and_progress_bars():
    before = "epoch 1 loss 0.5000 (0.52s)\n 50%|#####     | 5/10 [00:01<00:01,  4.12it/s]\rdone 10/10\n"
    after = "epoch 1 loss 0.5000 (0.11s)\n 50%|#####     | 5/10 [00:00<00:00,  9.80it/s]\r" \
            " 90%|######### | 9/10 [00:00<00:00, 9.9it/s]\rdone 10/10\n"
    m = match(before, after)
    assert m.same, m
    assert any("(s) 0.52 -> 0.11" in t for t in m.timing_lines)
    assert any("progress-bar" in t for t in m.timing_lines)
    assert not match("epoch 1 loss 0.5000 (0.52s)\n", "epoch 1 loss 0.6000 (0.11s)\n").same


def test_results_and_exactness_unchanged():
    assert not match("step 2 elapsed 3.1\n", "step 3 elapsed 1.2\n").same  # the step count is a result
    assert not match("train_runtime 25.92\n", "train_runtime 11.8\n", tolerance=0).same  # 0: exact
    assert not match("accuracy 0.91\n", "accuracy 0.85\n").same


def test_timing_names():
    for name in ("train_runtime", "train_samples_per_second", "elapsed", "stepTime", "eval_time_ms", "throughput",
                 "tokens/s", "latency"):
        assert is_timing_name(name), name
    for name in ("loss", "train_loss", "timestep", "epoch", "accuracy", "grad_norm", "learning_rate"):
        assert not is_timing_name(name), name
