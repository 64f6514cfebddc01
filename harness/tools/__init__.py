"""External solver binaries: tool entries (what a binary reads, how it is called, how its answer reads), running
one as a process under the run's limits, and the parsers of what the field's solvers print.

A *tool* is one entry: ``harness/tools/builtin.toml`` declares the built-in ones; a user declares more in a TOML
file of the same shape (the ``tool`` backend's ``tool_file`` option), with no code.
"""

from harness.tools.entry import FORMATS, Tool, builtin_tools, find_tool, load_tools
from harness.tools.parsers import PARSERS, ToolOutput
from harness.tools.process import Ran, run_tool

__all__ = ["FORMATS", "PARSERS", "Ran", "Tool", "ToolOutput", "builtin_tools", "find_tool", "load_tools",
           "run_tool"]
