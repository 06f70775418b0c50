"""Handlers of Corpus::Test::Note, written with cloudformation-cli-python-lib.

A note is an object of a bucket that exists before any stack (``buckets.json`` in the state
directory; "team-notes" when the file is absent), kept as ``$CORPUS_STATE/buckets/<bucket>/<key>``.
Its primary identifier is Bucket and Key, both createOnly. As a handler over S3's ListObjectsV2,
LIST lists the notes of the bucket the request's model names and cannot list without one
(FAILED InvalidRequest): CloudFormation and ``cfn test`` send the current model with every LIST.
A correct handler throughout.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "Corpus::Test::Note"
KEY_RE = re.compile(r"^[a-z][a-z0-9-]{0,62}$")


@dataclass
class ResourceModel(BaseModel):
    Bucket: str | None = None
    Key: str | None = None
    Body: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint


def _state() -> Path:
    root = Path(os.environ.get("CORPUS_STATE") or Path(tempfile.gettempdir()) / "corpus-note")
    root.mkdir(parents=True, exist_ok=True)
    return root


def _bucket(name: str | None) -> Path | None:
    """The bucket's directory, or None when no such bucket exists."""
    path = _state() / "buckets.json"
    known = json.loads(path.read_text()) if path.is_file() else ["team-notes"]
    if name not in known:
        return None
    directory = _state() / "buckets" / str(name)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _path(model: ResourceModel | None) -> Path | None:
    if model is None or not model.Key or not KEY_RE.match(model.Key):
        return None
    bucket = _bucket(model.Bucket)
    return bucket / model.Key if bucket is not None else None


def _model(bucket: str, key: str, body: str | None) -> ResourceModel:
    return ResourceModel(Bucket=bucket, Key=key, Body=body)


def _not_found(model: ResourceModel | None) -> exceptions.NotFound:
    name = f"{model.Bucket}/{model.Key}" if model is not None else "?"
    return exceptions.NotFound(TYPE_NAME, name)


@resource.handler(Action.CREATE)
def create_handler(
    _session: Any, request: Any, _context: MutableMapping[str, Any]
) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    if model is None or not model.Key or not KEY_RE.match(model.Key):
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, "Key must match ^[a-z][a-z0-9-]{0,62}$"
        )
    path = _path(model)
    if path is None:
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, f"bucket {model.Bucket!r} does not exist"
        )
    if path.exists():
        raise exceptions.AlreadyExists(TYPE_NAME, f"{model.Bucket}/{model.Key}")
    path.write_text(model.Body or "")
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=_model(str(model.Bucket), model.Key, model.Body),
    )


@resource.handler(Action.READ)
def read_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    path = _path(model)
    if path is None or not path.is_file():
        raise _not_found(model)
    body = path.read_text() or None
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_model(model.Bucket, model.Key, body)
    )


@resource.handler(Action.UPDATE)
def update_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    path = _path(model)
    if path is None or not path.is_file():
        raise _not_found(model)
    path.write_text(model.Body or "")
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_model(model.Bucket, model.Key, model.Body)
    )


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    path = _path(model)
    if path is None or not path.is_file():
        raise _not_found(model)
    path.unlink()
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel | None = request.desiredResourceState
    if model is None or not model.Bucket:
        # what ListObjectsV2 answers without a Bucket (botocore's ParamValidationError)
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, "the model's Bucket is needed to list"
        )
    bucket = _bucket(model.Bucket)
    if bucket is None:
        raise exceptions.NotFound("AWS::S3::Bucket", str(model.Bucket))
    models = [
        _model(model.Bucket, path.name, path.read_text() or None)
        for path in sorted(bucket.iterdir())
        if path.is_file()
    ]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
