import yaml


def handler(event, context):
    return {"vendored": getattr(yaml, "VENDORED", False), "file": yaml.__file__}
