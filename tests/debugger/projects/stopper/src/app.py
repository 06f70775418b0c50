import time


def stopper(event, context):
    answer = event.get("n", 0) * 2
    breakpoint()
    return {"answer": answer + 1}


def sleeper(event, context):
    time.sleep(event.get("sleep", 3))
    return {"slept": True}
