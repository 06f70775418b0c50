"""The embedded Docker-free Lambda endpoint (`cfn-debug serve`): SAM's start-lambda, Docker-free.

``server.EmbeddedEndpoint`` serves the Invoke API; ``template`` reads a project's functions.
This package's ``__init__`` imports nothing, so reading a template (or any one module here)
never pays for the HTTP server.
"""
