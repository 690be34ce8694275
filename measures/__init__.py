"""The measures engine: pure numpy, no Django. Prepare runs once, then evaluate any measures for any qrels.

from measures import TrecReader
c = TrecReader()
qrels = c.qrels_from_file("qrels.txt")
run = c.run_from_file("run.txt")
result = evaluate(qrels, [run], ["AP", "nDCG@10", "P(rel=2)@5"])
"""

from measures.batch import TREC_EVAL_VERSION, TREC_EVAL_VERSIONS
from measures.correlation import kendall_tau, spearman_rho, tau_ap
from measures.data import PreparedQrels, PreparedRun, Vocabulary, trec_order
from measures.engine import Evaluation, RunResult, aggregate, as_measures, canonical_names, evaluate
from measures.lines import TrecFormatError
from measures.loading import TrecReader
from measures.names import Measure, MeasureNameError
from measures.parsing import output_name, parse_measure, parse_measures
from measures.ranked import minimum_average_precision, precision_recall_points
from measures.registry import FAMILIES
from measures.runset import RunSet
from measures.trec_files import qrels_lines, read_qrels, read_run, run_lines
from measures.trec_names import TREC_DEFAULT

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
