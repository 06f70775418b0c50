"""cfn-debug: debug CloudFormation resource-type handlers against a local Lambda endpoint."""

__version__ = "0.1.0"
