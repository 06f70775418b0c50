import missing_dependency_of_the_fixture  # noqa: F401 - the import error under test


def handler(event, context):
    return {"version": 1}
