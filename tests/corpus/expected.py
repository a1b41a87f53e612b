"""Hand-written expectations for the precision corpus: what an expert reading each program wants flagged.

Written from the program text and checked against torch's own TORCH_TRACE of the same program (graph breaks with
their user frames and GB ids, recompile reasons); never from tdiag's output. Markers are substrings of one line.
"""

from __future__ import annotations

from corpus_scoring import Expect

EXPECTED: dict[str, Expect] = {
    "hf_bert_varlen.py": Expect(
        flag=[("RCP001", "EXPECT: sequence length changes"), ("RCP006", "EXPECT: sequence length changes")],
        why="the sequence length grows 16->24->32->40: one shape recompile at the model call (then automatic dynamic "
            "shapes make the length symbolic); loss.item() is outside the compiled model, not a break. The same "
            "recompile has a second cause torch's reason does not name (it logs the first failing guard, the size): "
            "transformers sets config.problem_type on the first call with labels; torch's guard dumps show compile "
            "0/0 guarding 'self.config.problem_type is None' and 0/1 '== single_label_classification' (and the "
            "size mark alone leaves the recompile: tests/library/test_hidden_guard_failure.py)",
    ),
    "hf_gpt2_generate.py": Expect(
        flag=[("BRK002", "EXPECT: .item() inside the compiled step"),
              ("RCP001", "EXPECT: the prompt grows every step")],
        why="token.item() inside the compiled step breaks the graph; the prompt grows by one token per call, so the "
            "step recompiles for the new length",
    ),
    "hf_t5_encoder_clean.py": Expect(
        why="fixed shapes, eval mode, no Python-side tensor reads: nothing to flag",
    ),
    "hf_vit_train_inductor.py": Expect(
        inductor=True,
        flag=[("RCP006", "loss = compiled(pixel_values=images, labels=labels).loss")],
        why="conv patch embedding and SDPA attention are vendor kernels Inductor picks on purpose (no LOW001, no "
            "LOW002); fixed shapes, but the training step compiles twice: transformers' loss sets "
            "config.problem_type on the first call, failing the guard 'self.config.problem_type is None' (torch's "
            "recompile reason), fixed by setting problem_type in the config up front",
    ),
    "xtransformers_lm_eval_flip.py": Expect(
        flag=[("RCP003", "EXPECT: train/eval flips")],
        why="model.eval() under no_grad after each training step: the compiled model recompiles for the mode change "
            "(training flag and grad mode), one cause at the call line in lm_loss",
    ),
    "pyg_gcn_varying_graphs.py": Expect(
        flag=[("RCP001", "EXPECT: node and edge counts change"),
              ("BRK005", "x = self.conv1(x, edge_index).relu()")],
        # the same library break reached from the second layer, and (in frames Dynamo compiles for GCNConv.forward
        # itself, whose traceback torch starts at the model call) from the call line: one cause, so one finding
        # anchored on the first user line is right; a finding on these lines is tolerated
        allow=[("BRK005", "return self.conv2(x, edge_index)"), ("BRK005", "EXPECT: node and edge counts change")],
        why="node and edge counts differ per graph: a shape recompile at the model call; every GCNConv call breaks "
            "inside torch_geometric (add_remaining_self_loops: torch's GB0036, an operator with a data-dependent "
            "output shape that Dynamo cannot trace by default), reached from the user's conv lines",
    ),
    "pyg_graph_pool.py": Expect(
        flag=[("BRK002", "EXPECT: the pool reads the number of graphs")],
        why="global_mean_pool without size= calls index.max().item() inside torch_geometric (torch: GB0124, "
            "Tensor.item()): a break anchored on the user's call of global_mean_pool, library frame kept as evidence",
    ),
    "diffusers_unet_timestep.py": Expect(
        flag=[("RCP002", "EXPECT: the timestep is a Python int")],
        why="the timestep is a Python int that changes every call: a scalar recompile at the UNet call",
    ),
    "einops_mixer_clean.py": Expect(
        why="einops layers inside a compiled nn.Sequential with fixed shapes: nothing to flag",
    ),
    "sequential_step_logging.py": Expect(
        flag=[("BRK005", "loss.backward()"),
              ("BRK002", "EXPECT: .item() in the compiled step"),
              ("BRK004", "EXPECT: print in the compiled step")],
        why="three distinct breaks in the compiled step, each on its own line: backward() (not traceable by Dynamo), "
            ".item() and print() of the formatted float; the code after .item() recompiles for each new loss value "
            "(a consequence of the .item() break, folded under it) and the print's resume function runs eagerly "
            "(GB0021, a cascade of the print break)",
        releases={"2.14": Expect(
            flag=[("BRK005", "loss.backward()"),
                  ("BRK002", "EXPECT: .item() in the compiled step"),
                  ("BRK004", "EXPECT: print in the compiled step"),
                  ("CRS008", "EXPECT: print in the compiled step")],
            exit_code=1,
            why="torch 2.14.1 breaks at the same three lines, then dies tracing the f-string of the float once the "
                "value is symbolic (InternalTorchDynamoError: ValueError: Unknown format code 'f' for object of type "
                "'str', plain python too, exit 1): a torch bug at the print line, named as one (CRS008), besides the "
                "three breaks",
        )},
    ),
    "dataclass_step_output.py": Expect(
        flag=[("BRK002", "EXPECT: .item() for the accuracy"),
              ("RCP002", "EXPECT: temperature")],
        allow=[("RCP002", "logits = model(x) / options.temperature")],  # the guard's own line: also a fair anchor
        why="accuracy .item() breaks the graph; the temperature float changes per call (scalar recompile at the call); "
            "StepOutput's generated __init__ (<string>) must never be where a finding points",
    ),
    "hf_bert_mask_branch.py": Expect(
        flag=[("BRK001", "EXPECT: branch on a tensor value")],
        why="the padding check branches on mask.sum(): a data-dependent branch in the user's forward",
    ),
    "hf_gpt2_bf16_eval.py": Expect(
        flag=[("RCP004", "EXPECT: parameters change dtype")],
        why="the model is cast to bfloat16 between calls: a dtype recompile at the model call",
    ),
    "custom_op_mlp_inductor.py": Expect(
        inductor=True,
        flag=[("LOW001", "EXPECT: custom op")],
        why="a user-registered custom op inside the compiled graph has no Inductor lowering: it runs as a fallback "
            "that splits the fusion around it (the fix is in the user's code: a lowering, or plain torch ops); the "
            "Linear GEMM (a 16x8 by 8x8 product) is not a finding: GEMM-template autotuning (LOW002) costs far more "
            "than it could save on a GEMM this small",
    ),
}


# Known library causes (analyzer/library_causes.json) an expert recognises in these programs, by catalogue id: the
# finding for that cause must come with the catalogue's fix (matched by library frame and torch's reason).
LIBRARY_CAUSES: dict[str, set[str]] = {
    "pyg_gcn_varying_graphs.py": {"pyg-gcn-remaining-self-loops"},
    "pyg_graph_pool.py": {"pyg-global-pool-size"},
    "diffusers_unet_timestep.py": {"diffusers-python-timestep"},
    "hf_vit_train_inductor.py": {"transformers-problem-type-guard"},
}
