"""Handlers of CfnDebug::Fixture::FpgaWatch: a watch on an EC2 FPGA image, which every handler
looks up with DescribeFpgaImages; an image EC2 does not know is NotFound, any other service
error GeneralServiceException (a correct mapping of what EC2 answers). moto's server answers
this operation with an HTML 500 page, which botocore cannot parse as EC2's XML: it raises
ResponseParserError, no ClientError, and the handler lets it through as AWS never sends it."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from botocore.exceptions import ClientError
from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "CfnDebug::Fixture::FpgaWatch"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _look_up(session: SessionProxy | None, model: ResourceModel) -> ProgressEvent:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    client = session.client("ec2")
    try:
        images = client.describe_fpga_images(FpgaImageIds=[model.FpgaImageId])["FpgaImages"]
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if code in ("InvalidFpgaImageID.NotFound", "InvalidFpgaImageID.Malformed"):
            return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.FpgaImageId}")
        return ProgressEvent.failed(HandlerErrorCode.GeneralServiceException, f"{code}")
    if not images:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.FpgaImageId}")
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=ResourceModel(FpgaImageId=images[0]["FpgaImageId"]),
    )


@resource.handler(Action.CREATE)
@resource.handler(Action.READ)
@resource.handler(Action.UPDATE)
def look_up(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _look_up(session, request.desiredResourceState)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    found = _look_up(session, request.desiredResourceState)
    if found.status is OperationStatus.SUCCESS:
        found.resourceModel = None
    return found
