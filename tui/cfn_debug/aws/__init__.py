"""Which AWS the handlers talk to, and what `cfn test` sets up before contract tests run.

``target.py`` describes the AWS of a session (local, an endpoint, a real account, none);
``local.py`` starts and stops moto's server on loopback; ``setup_stack.py`` deploys the project's
``test/setup.yml`` into it and lists exports; ``placeholders.py`` fills ``{{ExportName}}`` in
inputs, events and overrides; ``session.py`` puts them together for a workspace. No module here
uses textual (the engine never does), and boto3 is loaded only where AWS is called.
"""
