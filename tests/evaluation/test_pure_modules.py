"""The pure modules stay pure: importing them loads no Django, so they run in any script, notebook or worker."""

from __future__ import annotations

import subprocess
import sys

PURE = [
    "config.outbound",
    "config.secrets",
    "measures",
    "measures.agreement",
    "measures.judgment_groups",
    "measures.preferences",
    "measures.bradley_terry",
    "judging.tournament",
    "evaluation.agreement",
    "evaluation.machine_verification",
    "judging.machine.lexical",
    "judging.machine.verification",
    "judging.quality",
    "evaluation.consensus",
    "evaluation.ranking_agreement",
    "evaluation.significance",
    "evaluation.curves",
    "evaluation.plots",
    "judging.pool_strategies",
    "judging.ordering",
    "judging.simulate",
    "judging.stopping",
    "judging.identifiers",
    "judging.strict_json",
    "judging.importers.archives",
    "judging.machine.prompts",
    "judging.machine.client",
    "judging.machine.cache",
    "judging.machine.judge",
    "evaluation.online.records",
    "evaluation.online.sources",
    "evaluation.online.store",
    "evaluation.online.measures",
    "evaluation.online.ab",
    "evaluation.online.simulate",
    "evaluation.online.click_models",
    "evaluation.online.traffic",
    "evaluation.online.__main__",
    "evaluation.estimates",
]


def test_pure_modules_import_without_django():
    check = (
        "import importlib, sys\n"
        f"for name in {PURE!r}: importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(loaded[:5]); sys.exit(1 if loaded else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
