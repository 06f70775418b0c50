"""A plain Lambda function (no resource library) whose DynamoDB call raises out of the handler:
the function crashes, and the crash is a botocore ClientError."""

from __future__ import annotations

from typing import Any

import boto3


def handler(event: Any, context: Any) -> dict[str, Any]:
    table = event.get("TableName", "no-such-table") if isinstance(event, dict) else "no-such-table"
    dynamodb = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="fixture",
        aws_secret_access_key="fixture",
    )
    dynamodb.describe_limits()
    dynamodb.put_item(TableName=table, Item={"Name": {"S": "raw"}})
    return {"ok": True}
