"""External solver binaries: tool entries (what a binary reads, how it is called, how its answer reads), running
one as a process under the run's limits, and the parsers of what the field's solvers print.

A *tool* is one entry: ``harness/tools/builtin.toml`` declares the built-in ones; a user declares more in a TOML
file of the same shape (the ``tool`` backend's ``tool_file`` option), with no code.  A call is measured by the
process-tree path (:mod:`harness.tools.process`) or by BenchExec's ``runexec`` (:mod:`harness.tools.runexec`).
"""

from harness.tools.entry import FORMATS, Tool, builtin_tools, find_tool, load_tools
from harness.tools.parsers import PARSERS, ToolOutput
from harness.tools.process import Ran, run_tool
from harness.tools.runexec import benchexec_version, run_measured, unusable

__all__ = ["FORMATS", "PARSERS", "Ran", "Tool", "ToolOutput", "benchexec_version", "builtin_tools", "find_tool",
           "load_tools", "run_measured", "run_tool", "unusable"]
