"""analyzer/guard_diff.py on guard lines as torch 2.13 printed them for tests/library/programs_in_main/
bert_varlen_step_in_main.py (the end-to-end check, with torch's compile count as the oracle, is
tests/library/test_hidden_guard_failure.py): which value guards of a failed entry count as failed behind the logged
one, and which do not."""

from tdiag.analyzer.guard_diff import hidden_failures
from tdiag.analyzer.model import Guard, GuardFailure
from tdiag.analyzer.paths import PathMapper

SIZE = GuardFailure("0/0", "tensor 'ids' size mismatch at index 1. expected 8, actual 12", "size", subject="ids", dim=1)
NONE = Guard("NONE_MATCH", "L['model'].config.problem_type is None", source="if self.config.problem_type is None:",
             path="transformers/models/bert/modeling_bert.py", line=1119)
SET = Guard("EQUALS_MATCH", "L['model'].config.problem_type == 'single_label_classification'")
RETURN_DICT = Guard("EQUALS_MATCH", "L['model'].config.return_dict == True")


def test_a_value_guard_the_new_compile_guards_to_another_value_failed_too():
    [hidden] = hidden_failures([NONE, RETURN_DICT], [SET, RETURN_DICT], [SIZE])
    assert hidden.hidden and hidden.entry == "0/0"
    assert hidden.text == "model.config.problem_type is None"  # as torch words a failure: no L['...']
    assert (hidden.expected, hidden.actual) == ("None", "'single_label_classification'")
    assert (hidden.path, hidden.line) == ("transformers/models/bert/modeling_bert.py", 1119)


def test_unchanged_missing_or_logged_guards_are_not_failures():
    assert hidden_failures([NONE, RETURN_DICT], [NONE, RETURN_DICT], [SIZE]) == []  # same values
    assert hidden_failures([NONE], [], [SIZE]) == []  # the new compile does not guard it (made dynamic, not read)
    logged = GuardFailure("0/0", "model.config.problem_type is None", "other")
    assert hidden_failures([NONE], [SET], [logged]) == []  # torch logged this very guard
    stack = [Guard("EQUALS_MATCH", "L['___stack0'] == 1.31")], [Guard("EQUALS_MATCH", "L['___stack0'] == 1.52")]
    assert hidden_failures(*stack, [SIZE]) == []  # a resumed frame's stack slot: a break's consequence, Dynamo's name
    sized = Guard("EQUALS_MATCH", "L['ids'].size()[1] == 8")
    assert hidden_failures([sized], [Guard("EQUALS_MATCH", "L['ids'].size()[1] == 12")], [SIZE]) == []  # it names ids


def test_a_guard_comment_path_is_the_users_file_where_the_run_has_it_else_a_librarys():
    paths = PathMapper("/proj", cwd="/proj/scripts", live_files=["/proj/scripts/train.py"])
    assert paths.guard_comment_path("scripts/train.py") == "scripts/train.py"
    assert paths.guard_comment_path("transformers/models/bert/modeling_bert.py") == \
        "<site-packages>/transformers/models/bert/modeling_bert.py"
