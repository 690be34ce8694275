"""The measures engine: pure numpy, no Django. Prepare runs once, then evaluate any measures for any qrels.

from measures import TrecReader
c = TrecReader()
qrels = c.qrels_from_file("qrels.txt")
run = c.run_from_file("run.txt")
result = evaluate(qrels, [run], ["AP", "nDCG@10", "P(rel=2)@5"])
"""

from .batch import TREC_EVAL_VERSION, TREC_EVAL_VERSIONS
from .correlation import kendall_tau, spearman_rho, tau_ap
from .data import PreparedQrels, PreparedRun, Vocabulary, trec_order
from .engine import Evaluation, RunResult, aggregate, as_measures, canonical_names, evaluate
from .lines import TrecFormatError
from .loading import TrecReader
from .names import Measure, MeasureNameError
from .parsing import output_name, parse_measure, parse_measures
from .ranked import minimum_average_precision, precision_recall_points
from .registry import FAMILIES
from .runset import RunSet
from .trec_files import qrels_lines, read_qrels, read_run, run_lines
from .trec_names import TREC_DEFAULT

__all__ = [
    "FAMILIES",
    "TREC_DEFAULT",
    "TREC_EVAL_VERSION",
    "TREC_EVAL_VERSIONS",
    "Evaluation",
    "Measure",
    "MeasureNameError",
    "PreparedQrels",
    "PreparedRun",
    "RunResult",
    "RunSet",
    "TrecFormatError",
    "TrecReader",
    "Vocabulary",
    "aggregate",
    "as_measures",
    "canonical_names",
    "evaluate",
    "kendall_tau",
    "minimum_average_precision",
    "output_name",
    "parse_measure",
    "parse_measures",
    "precision_recall_points",
    "qrels_lines",
    "read_qrels",
    "read_run",
    "run_lines",
    "spearman_rho",
    "tau_ap",
    "trec_order",
]
