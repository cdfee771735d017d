"""Capturing traces for one test: an OpenTelemetry span exporter and a LangSmith run collector.

Both are imported only when a test asks for the ``captured_trace`` fixture (``fixture.py``).
"""
