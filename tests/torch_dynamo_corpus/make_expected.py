"""Writes expected.json and EXPECTED.md from the hand-written expectations below plus the measured numbers in
truth/ (program) and truth/fixes/ (fix copy). The expectations (kind, id, user line, fix verdict) were written by
hand from torch's tests and torch's own account (truth/), without tdiag.
usage: python make_expected.py"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (kind, id / guard kind, gb_type or guard text, line marker (text of the line an expert names), fix, note)
# fix: "yes" (fixes/NAME__FIX.py), "hint" (torch's own hint is the fix, in fixes/), "nothing to fix", "no user fix"
E = {
 "gb_backward_in_compiled": ("break", "GB0123", "Unsupported Tensor.backward() call", "loss.backward()", "yes",
   "also GB0008 at opt.zero_grad() and GB0025 inside optimizer.step(); fix: compile forward+loss only"),
 "gb_break_in_loop": ("break", "GB0170", "Data-dependent branching (+ GB7000 graph break in loop: frame skipped)", "if x.sum() > 0:", "yes",
   "the whole frame runs eagerly (0 graphs); torch.where in the loop"),
 "gb_checkpoint_side_effect": ("break", "GB0067", "HOP: Unsafe side effect (under checkpoint)", "calls.append(1)", "hint",
   "torch's hint skip_fwd_side_effects_in_bwd_under_checkpoint = True"),
 "gb_class_in_compiled": ("break", "GB8977", "Invalid call to __build_class__ (torch's test: gb0007 builtins.__build_class__)", "class Result:", "yes",
   "also 2 recompiles on the new class object per call; define the class at module level"),
 "gb_compiler_disable_arg": ("break", "GB0098", "Skip calling `torch.compiler.disable()`d function", "return fn(y) + 1", "hint",
   "torch's hint: remove torch.compiler.disable (if the helper is traceable)"),
 "gb_compiler_disable_global": ("break", "GB0098", "Skip calling `torch.compiler.disable()`d function (not GB0099)", "m = log_stats(y)", "hint",
   "torch's hint: remove torch.compiler.disable"),
 "gb_context_manager_from_outside": ("break", "GB0142", "Unsupported context manager (`lock`)", "with lock:", "yes",
   "frame fails and runs eagerly; take the lock outside the compiled call"),
 "gb_custom_op_fake_nyi": ("break", "GB0087", "NotImplementedError/UnsupportedFakeTensorException when running FX node", "return torch.ops.corpuslib.my_sin(x) + 1", "hint",
   "torch's hint: implement the fake kernel (register_fake at the `raise NotImplementedError` line)"),
 "gb_data_dependent_branch": ("break", "GB0170", "Data-dependent branching", "if x.sum() > 0:", "yes",
   "torch hints torch.cond; torch.where suffices"),
 "gb_deepcopy": ("break", "GB4198", "Attempted to copy.deepcopy a tensor (registry GB0179 copy.deepcopy() is the generic sibling)", "old = copy.deepcopy(state)", "yes",
   "clone the tensors"),
 "gb_dict_items_input": ("break", "GB0811", "missing tp_iter (+ GB4347 Missing tp_iternext at next(it)); torch's test expects gb0156", "it = iter(items)", "hint",
   "torch's (test) hint: build the dict view inside the compiled region"),
 "gb_explicit_graph_break": ("break", "GB0025", "Call to `torch._dynamo.graph_break()`", "torch._dynamo.graph_break()", "hint",
   "torch's hint: remove the call"),
 "gb_generic_ctx_mgr": ("break", "GB0059", "Failed to trace builtin operator (print) then GB0066 Graph break under GenericContextWrappingVariable", "print(\"matmul done\")", "yes",
   "see truth: the frame is skipped; fix moves the print out of the with-block (torch's hint: move the context manager out)"),
 "gb_inline_skipped_function": ("break", "GB0008", "Attempted to inline function marked as skipped (unittest.skip)", "Helper().mark()", "yes",
   "drop the call"),
 "gb_intermediate_hook": ("break", "GB0067", "HOP: Unsafe side effect (hook closure appends to a list)", "h.register_hook(lambda g: grads.append(g.norm()))", "yes",
   "return the intermediate, register the hook outside"),
 "gb_logger_info": ("break", "GB0291", "logging.Logger method not supported for non-export cases", "logger.info(\"forward done\")", "hint",
   "torch's hint: torch._dynamo.config.ignore_logger_methods"),
 "gb_lstm_module": ("break", "GB0014", "Attempted to wrap RNN, GRU, or LSTM", "h, _ = self.lstm(self.emb(tokens))", "hint",
   "torch's hint: torch._dynamo.config.allow_rnn = True"),
 "gb_lstsq_no_meta": ("break", "GB0037", "Dynamic shape operator (no meta kernel)", "return torch.linalg.lstsq(a, b).solution.sum()", "yes",
   "fix: torch.linalg.solve (a is square); NOT_FIX: dropping the user's capture_dynamic_output_shape_ops only moves the break to GB0036 (fixes/..__NOT_FIX_drop_capture_config.py)"),
 "gb_nonzero_dynamic_shape": ("break", "GB0036", "Dynamic shape operator (aten.nonzero)", "idx = torch.nonzero(x > 0).squeeze(1)", "yes",
   "fixed-shape masked mean"),
 "gb_one_hot_no_classes": ("break", "GB0246", "one_hot with data-dependent output shape", "return F.one_hot(labels).float().sum(0)", "hint",
   "torch's hint: pass num_classes"),
 "gb_print_builtin": ("break", "GB0059", "Failed to trace builtin operator (print)", "print(\"step: doubled\")", "hint",
   "torch's hint: reorderable_logging_functions.add(print)"),
 "gb_raise_in_compiled": ("break", "GB0088", "Observed exception", "raise ValueError(\"scale must be positive\")", "nothing to fix",
   "the exception is the program's intent (only the failing call breaks); also 1 recompile on the int s"),
 "gb_randn_generator": ("break", "GB0055", "Failed to convert args/kwargs to proxy (torch.Generator)", "return x + 0.1 * torch.randn(x.shape, generator=gen)", "yes",
   "draw the noise outside with the same generator"),
 "gb_requires_grad_in_compiled": ("break", "GB0225", "tensor creation function with requires_grad=True", "bias = torch.zeros(3, requires_grad=True)", "yes",
   "create the leaf outside"),
 "gb_return_bound_method": ("break", "GB0092", "Reconstruction failure (bound method of a new object)", "return y, Scaler(3).apply", "yes",
   "frame fails, runs eagerly; return the object"),
 "gb_shape_mismatch_bug": ("break", "GB4315", "RuntimeError when making fake tensor call (user bug; eager fails the same)", "return x + y", "no user fix",
   "a real bug: eager raises the same error; no gb id in the trace (TorchRuntimeError, failed frame)"),
 "gb_sort_tensor_keys": ("break", "GB0207", "sort with non-constant keys", "ranked = sorted(scores)", "yes", "torch.sort"),
 "gb_tensor_item": ("break", "GB0124", "Tensor.item() with capture_scalar_outputs=False", "m = x.max().item()", "yes",
   "keep it a tensor (torch's hint capture_scalar_outputs=True also exists)"),
 "gb_tensor_repr": ("break", "GB0569", "repr() on tensor", "label = repr(y)", "yes", "format outside"),
 "gb_tolist_float": ("break", "GB0109", "Tensor.tolist() with non-integer tensor", "vals = (x.softmax(0) * 100).tolist()", "yes", "tolist outside"),
 "gb_torch_equal": ("break", "GB0033", "Data dependent operator (aten.equal)", "if torch.equal(x, y):", "yes",
   "torch.where on (x == y).all(); also 1 recompile on the resumed bool"),
 "gb_warnings_warn": ("break", "GB0007", "Attempted to call function marked as skipped (_warnings.warn)", "warnings.warn(\"small batch, statistics may be noisy\")", "hint",
   "torch's hint: reorderable_logging_functions.add(warnings.warn)"),
 "gb_zip_call": ("break", "GB0147", "Unsupported function call (calling a zip object; eager raises TypeError too)", "return [a + b + 1 for a, b in pairs()]", "no user fix",
   "user bug, eager raises the same TypeError; not a compile problem"),
 "skip_empty_function": ("skip", "no ops traced", "frame skipped without graph break: No ops traced for the FX graph (only at TORCH_LOGS=+dynamo; nothing in graph_breaks/recompiles logs)", "def record(x, history):", "nothing to fix",
   "nothing in the frame is a tensor op"),
 "skip_generator_function": ("skip", "GB0003 generator function", "compiling a generator function: GB0003 'Attempt to trace generator', only in counters['unimplemented'] (no graph_breaks log line, no trace record); the generator runs eagerly", "def batches(x, n):", "hint",
   "torch's hint: compile a non-generator function the generator calls"),
 "skip_lru_cache": ("skip", "lru_cache wrapped function", "UserWarning: call to a lru_cache wrapped function (dynamo traces through, ignoring the cache)", "return bias_for(x)", "nothing to fix",
   "a warning only; result the same"),
 "guard_aliasing": ("guard", "tensor aliasing", "Duplicate tensors found: [\"a\", \"c\"]", "r3 = foo(xc, y.clone(), xc)", "nothing to fix", "one-time recompile, expected"),
 "guard_bool_flag": ("guard", "Python bool value", "flag == True (then a size mismatch, automatic dynamic)", "out.append(foo(flag, torch.ones(n)).sum().item())", "nothing to fix",
   "one graph per bool value + one dynamic-shape recompile; expected"),
 "guard_closure_fn_object": ("guard", "closure cell value", "g.__closure__[0].cell_contents == 0 (HINT: guard on \"k\")", "total += h(torch.ones(5), make_adder(i)).sum().item()", "nothing to fix",
   "one recompile, then dynamic"),
 "guard_dict_keys": ("guard", "dict keys / length", "len(losses) != 2", "print(\"totals:\", [total_loss(d).item() for d in (a, b, c, a)])", "nothing to fix",
   "one graph per key set (3)"),
 "guard_dtype": ("guard", "tensor dtype", "tensor 'a' dtype mismatch. expected Float, actual Half", "r2 = func(a.to(torch.float16))", "nothing to fix", "one entry per dtype"),
 "guard_float_value": ("guard", "Python float value", "lr == 0.1", "w = sgd_update(w, g, lr)", "nothing to fix",
   "one recompile, then the float is dynamic (no storm)"),
 "guard_global_value": ("guard", "global variable value", "G['SCALE'] == 1", "SCALE = s", "yes",
   "3 recompiles (one per value; globals are not made dynamic); pass a tensor argument"),
 "guard_grad_mode": ("guard", "global state: grad mode", "GLOBAL_STATE changed: grad_mode", "p2 = predict(x)", "nothing to fix", "one entry per grad mode"),
 "guard_int_value_automatic": ("guard", "Python int value", "n == 0", "total += shift(torch.ones(5), i).sum().item()", "nothing to fix",
   "one recompile, then dynamic"),
 "guard_int_value_limit": ("guard", "Python int value (dynamic=False) -> recompile limit", "n == 0 ... hit config.recompile_limit (8)", "@torch.compile(backend=\"eager\", dynamic=False)", "yes",
   "drop dynamic=False"),
 "guard_list_length": ("guard", "list length", "len(xs) == 3", "out = [f([4, 5, 6]).item(), f([7, 8]).item(), f([9]).item(), f([1, 2, 3, 4]).item()]", "nothing to fix",
   "one graph per length (4), under the limit"),
 "guard_module_training": ("guard", "nn.Module training flag", "self._modules['dropout'].training == False", "model.eval()", "nothing to fix",
   "2 entries (train/eval), no further recompiles"),
 "guard_object_id": ("guard", "object id (ID_MATCH)", "___check_obj_id(cfg.act, ...)", "outs.append(round(run(x, Config(act)).sum().item(), 4))", "nothing to fix",
   "one entry per distinct function (3)"),
 "guard_param_vs_tensor": ("guard", "tensor type (Parameter vs Tensor)", "expected type of 'b' to be a tensor type, but found <class 'torch.Tensor'>", "r2 = func(a, b_tensor)", "nothing to fix", "one-time"),
 "guard_requires_grad": ("guard", "tensor requires_grad", "tensor 'a' requires_grad mismatch. expected requires_grad=0", "r2 = func(a_grad)", "nothing to fix", "one-time"),
 "guard_self_attribute": ("guard", "compiled module's self attribute (float)", "self.temperature == 1.0", "m.temperature = t", "nothing to fix",
   "one recompile then dynamic; fixes/guard_self_attribute__NOT_NEEDED_buffer.py shows the buffer variant (0 recompiles)"),
 "guard_stride_permute": ("guard", "tensor stride", "tensor 'b' stride mismatch at index 1. expected 5, actual 1", "func(a, b_p, c)", "nothing to fix", "one-time; a view with the same strides does not recompile"),
 "guard_tensor_size_automatic_dynamic": ("guard", "tensor size (automatic dynamic)", "tensor 'x' size mismatch at index 0. expected 2, actual 3", "total += foo(x, x).sum().item()", "nothing to fix",
   "one recompile, then dynamic"),
 "guard_tensor_size_static": ("guard", "tensor size (dynamic=False) -> recompile limit", "tensor 'x' size mismatch at index 0 ... hit config.recompile_limit (8)", "@torch.compile(backend=\"eager\", dynamic=False)", "yes",
   "drop dynamic=False"),
 "guard_type_int_vs_tensor": ("guard", "argument type (Tensor vs int)", "expected type of 'b' to be a tensor type, but found <class 'int'>", "r2 = func(a, 1)", "nothing to fix", "one-time"),
}


def counts(path):
    if not os.path.exists(path):
        return None
    d = json.load(open(path))
    s = d["summary"]
    return {"graphs": s["graphs"], "graph_break_records": s["graph_break_records"], "gb_ids": s["gb_ids"],
            "recompiles": s["recompiles"], "failed_frames": s["failed_frames"], "exit_status": d["plain"]["exit_status"],
            "stdout": d["plain"]["stdout"], "stdout_same_as_eager": d["stdout_same_as_eager"]}


def line_of(name, marker, folder="programs"):
    for i, l in enumerate(open(os.path.join(HERE, folder, name + ".py")), 1):
        if marker in l and not l.lstrip().startswith("#"):
            return i
    raise SystemExit(f"{name}: marker not found: {marker}")


recs = []
for name, (kind, ident, text, marker, fix, note) in sorted(E.items()):
    before = counts(os.path.join(HERE, "truth", name + ".json"))
    fixfile = None
    for cand in (name + "__FIX.py",):
        if os.path.exists(os.path.join(HERE, "fixes", cand)):
            fixfile = cand
    after = counts(os.path.join(HERE, "truth", "fixes", fixfile[:-3] + ".json")) if fixfile else None
    checked = None
    if after and before:
        gone = (after["graph_break_records"] < before["graph_break_records"] or after["recompiles"] < before["recompiles"]
                or after["failed_frames"] < before["failed_frames"] or (before["graphs"] == 0 and after["graphs"] > 0))
        checked = bool(gone and after["stdout"] == before["stdout"] and after["exit_status"] == before["exit_status"])
    rec = {"program": name, "kind": kind, "id": ident, "torch_reports": text, "user_line": line_of(name, marker),
           "user_line_text": marker, "fix": fix, "torch_hint_is_fix": fix == "hint", "fix_file": ("fixes/" + fixfile) if fixfile else None,
           "fix_checked": checked, "note": note,
           "before": {k: v for k, v in (before or {}).items() if k != "stdout"},
           "after": {k: v for k, v in (after or {}).items() if k != "stdout"} if after else None,
           "after_stdout_same_as_before": (after["stdout"] == before["stdout"]) if after and before else None}
    recs.append(rec)
json.dump(recs, open(os.path.join(HERE, "expected.json"), "w"), indent=1)

kinds = {"break": set(), "guard": set(), "skip": set()}
for r in recs:
    kinds[r["kind"]].add(r["id"])
lines = ["# torch Dynamo test corpus: expectations", "",
         "Written from pytorch's own tests (test/dynamo/test_error_messages.py, test_recompiles.py, test_recompile_ux.py) and",
         "torch's own account of each program (truth/, made by collect.py: TORCH_LOGS, TORCH_TRACE, counters), without reading",
         "or running tdiag. Generated by make_expected.py from its hand-written table and the measured numbers.", "",
         "Columns: **line** is the user line an expert names; **fix**: `yes` (fixes/NAME__FIX.py), `hint` (torch's own hint is",
         "the fix, also in fixes/), `nothing to fix` (expected one-time recompile / intended behaviour), `no user fix` (a bug",
         "that fails eagerly too). **checked**: the fix copy was re-run with collect.py and its break/recompile/failed-frame count",
         "went down with the same stdout and exit status. before/after: graph-break records / recompiles / failed frames.", "",
         "| program | kind | GB id / guard kind | line | fix | checked | before (gb/rec/fail) | after (gb/rec/fail) | note |",
         "|---|---|---|---|---|---|---|---|---|"]
for r in recs:
    b, a = r["before"], r["after"]
    fmt = lambda c: f"{c['graph_break_records']}/{c['recompiles']}/{c['failed_frames']}" if c else "-"
    lines.append(f"| {r['program']} | {r['kind']} | {r['id']} | {r['user_line']} `{r['user_line_text']}` | {r['fix']} | "
                 f"{'y' if r['fix_checked'] else ('n' if r['fix_file'] else '-')} | {fmt(b)} | {fmt(a)} | {r['note']} |")
lines += ["", f"Distinct break types (GB ids, primary per program): {len(kinds['break'])}; guard kinds: {len(kinds['guard'])}; "
          f"skip reasons: {len(kinds['skip'])}.", ""]
open(os.path.join(HERE, "EXPECTED.md"), "w").write("\n".join(lines))
print("\n".join(lines[-3:]))
