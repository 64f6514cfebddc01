"""Reports and checks from stored results: metrics, plots, HTML/Markdown, agreement, regression.

Reads only results stores (and the instance manifest); never imports a solver library
or the runner, so reports rebuild on a machine with no solver installed.
"""
