"""What the handler's cloudformation-cli-python-lib reads: its request shape (``shape``) and
its refusals of a request before the handler runs (``refusal``)."""
