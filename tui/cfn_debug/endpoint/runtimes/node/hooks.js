'use strict';
/*
 * Loaded with `node --require hooks.js` before the handler's code: records every AWS call the
 * handler makes, and points the AWS SDK for JavaScript v2 at AWS_ENDPOINT_URL.
 *
 * It wraps Module._load: after each require, a module that is the core of an AWS SDK is patched,
 * once per copy of it (a project may hold several copies in node_modules):
 *
 * - SDK v3: the smithy Client class every v3 client extends (@smithy/core/client, before that
 *   @smithy/smithy-client or @aws-sdk/smithy-client): its send() is wrapped.
 * - SDK v2 (aws-sdk, what cloudformation-cli-typescript-lib 1.0.x builds its sessions with): its
 *   global event bus (AWS.events: validate, complete) for the records; and, when
 *   AWS_ENDPOINT_URL is set (--local-aws), every client's default endpoint becomes it (v2 does
 *   not read the variable, v3 does), with path-style S3 addressing and no host prefix.
 *
 * Records are aws_recorder.py's (the Python workers'): one line on fd 1, RECORD_MARK then JSON;
 * a start record {"id", "start": true, "service", "operation"} when a call goes out, then the
 * call's {"id", "service", "operation", "params", "http_status", "error_code", "error_message",
 * "duration_ms", "attempts"}. Service names are the SDK's service id in lower case without
 * spaces ("dynamodb", "s3", "cloudwatchlogs"), operations as the API names them ("PutItem").
 * Parameters: the top-level ones only; a name that says it holds a secret is masked, long
 * values are cut, bytes are replaced by their size. Recording never changes what a call does.
 */

const fs = require('fs');
const Module = require('module');

const RECORD_MARK = '\x1e__cfn_debug_aws__ ';
const MASKED = '***REDACTED***';
const MAX_STRING = 256;
const MAX_JSON = 1024;
const MAX_RECORD = 32768;
const SECRET_NAME_PARTS = ['password', 'secret', 'passphrase', 'privatekey', 'credentials'];
const PUBLIC_TOKENS = [
    'nexttoken',
    'continuationtoken',
    'clienttoken',
    'requesttoken',
    'paginationtoken',
    'idempotencytoken',
    'starttoken',
];
const PATCHED = Symbol.for('cfn-debug.aws-recorder');
let nextId = 1;

function write(record) {
    try {
        let text = JSON.stringify(record);
        if (text.length > MAX_RECORD && record.params) {
            const names = {};
            for (const key of Object.keys(record.params)) {
                names[key] = '<cut>';
            }
            text = JSON.stringify({ ...record, params: names }).slice(0, MAX_RECORD);
        }
        const data = Buffer.from(RECORD_MARK + text + '\n', 'utf8');
        let at = 0;
        for (let tries = 0; at < data.length && tries < 1000; tries++) {
            try {
                at += fs.writeSync(1, data, at);
            } catch (error) {
                if (error.code !== 'EAGAIN') {
                    return;
                }
            }
        }
    } catch (_) {
        // recording must never change what the handler's call does
    }
}

function secretName(name) {
    const lowered = name.toLowerCase();
    if (SECRET_NAME_PARTS.some((part) => lowered.includes(part))) {
        return true;
    }
    return lowered.includes('token') && !PUBLIC_TOKENS.some((end) => lowered.endsWith(end));
}

function value(item) {
    if (item === null || item === undefined || typeof item === 'boolean' || typeof item === 'number') {
        return item === undefined ? null : item;
    }
    if (typeof item === 'string') {
        return item.length <= MAX_STRING ? item : `${item.slice(0, MAX_STRING)}… (${item.length} characters)`;
    }
    if (typeof item === 'bigint') {
        return String(item);
    }
    if (Buffer.isBuffer(item) || item instanceof Uint8Array) {
        return `<${item.length} bytes>`;
    }
    if (item && typeof item.pipe === 'function') {
        return `<stream ${item.constructor ? item.constructor.name : 'object'}>`;
    }
    let text;
    try {
        text = JSON.stringify(item, (_key, inner) =>
            inner instanceof Uint8Array ? `<${inner.length} bytes>` : typeof inner === 'bigint' ? String(inner) : inner
        );
    } catch (_) {
        return `<${typeof item}>`;
    }
    if (text === undefined) {
        return `<${typeof item}>`;
    }
    if (text.length <= MAX_JSON) {
        return JSON.parse(text);
    }
    if (Array.isArray(item)) {
        return `<array: ${item.length} items, ${text.length} characters>`;
    }
    return `<object: ${Object.keys(item).length} keys, ${text.length} characters>`;
}

function topLevel(params) {
    const out = {};
    if (!params || typeof params !== 'object') {
        return out;
    }
    for (const [key, item] of Object.entries(params)) {
        out[key] = secretName(key) ? MASKED : value(item);
    }
    return out;
}

function serviceName(raw) {
    return String(raw || '?').toLowerCase().replace(/[\s_-]+/g, '');
}

// --- SDK v3 ----------------------------------------------------------------------------------

function patchV3(exported) {
    const Client = exported.Client;
    const original = Client.prototype.send;
    if (original[PATCHED]) {
        return;
    }
    const send = function (command, ...rest) {
        const id = nextId++;
        const name = command && command.constructor ? command.constructor.name : '?';
        const operation = name.endsWith('Command') ? name.slice(0, -'Command'.length) : name;
        const config = this && this.config ? this.config : {};
        const service = serviceName(config.serviceId);
        const params = topLevel(command && command.input);
        write({ id, start: true, service, operation });
        const started = process.hrtime.bigint();
        const finish = (status, code, message, attempts) => {
            const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
            write({
                id,
                service,
                operation,
                params,
                http_status: status === undefined ? null : status,
                error_code: code || null,
                error_message: message || null,
                duration_ms: Math.round(elapsed * 1000) / 1000,
                attempts: attempts > 0 ? attempts : 1,
            });
        };
        let result;
        try {
            result = original.call(this, command, ...rest);
        } catch (error) {
            finish(undefined, error && error.name, error && error.message, 1);
            throw error;
        }
        if (!result || typeof result.then !== 'function') {
            return result; // the callback form: not recorded (rare with v3)
        }
        return result.then(
            (output) => {
                const meta = (output && output.$metadata) || {};
                finish(meta.httpStatusCode, null, null, meta.attempts);
                return output;
            },
            (error) => {
                const meta = (error && error.$metadata) || {};
                const named = error && error.name && error.name !== 'Error' ? error.name : null;
                const code = named || (error && (error.Code || error.code)) || 'Error';
                const message = error && error.message ? String(error.message).slice(0, MAX_JSON) : null;
                finish(meta.httpStatusCode, code, message, meta.attempts);
                throw error;
            }
        );
    };
    send[PATCHED] = true;
    Client.prototype.send = send;
}

function own(object, name) {
    // Own properties only: a module still loading (a circular require) has a prototype that
    // warns about every property looked up through it.
    return Object.prototype.hasOwnProperty.call(object, name);
}

function isV3Core(exported) {
    return (
        exported &&
        typeof exported === 'object' &&
        own(exported, 'Client') &&
        own(exported, 'Command') &&
        typeof exported.Client === 'function' &&
        typeof exported.Client.prototype.send === 'function'
    );
}

// --- SDK v2 ----------------------------------------------------------------------------------

function patchV2(AWS) {
    if (AWS[PATCHED]) {
        return;
    }
    AWS[PATCHED] = true;
    const endpoint = process.env.AWS_ENDPOINT_URL;
    const defaults = AWS.Config && AWS.Config.prototype && AWS.Config.prototype.keys;
    if (endpoint && defaults && typeof defaults === 'object') {
        // The defaults of every Config made from now on (the SDK replaces AWS.config while it
        // loads): a client given an endpoint of its own keeps it.
        defaults.endpoint = endpoint;
        defaults.s3ForcePathStyle = true;
        // no host prefix (S3 Control's "{AccountId}."): it would name a host under the local
        // endpoint's address, which nothing resolves; the request's headers still carry it
        defaults.hostPrefixEnabled = false;
    }
    AWS.events.on('validate', (request) => {
        try {
            const id = nextId++;
            const service = serviceName(request.service && request.service.serviceIdentifier);
            const op = String(request.operation || '?');
            const operation = op.charAt(0).toUpperCase() + op.slice(1);
            request[PATCHED] = { id, service, operation, started: process.hrtime.bigint(), params: topLevel(request.params) };
            write({ id, start: true, service, operation });
        } catch (_) {
            // never in the call's way
        }
    });
    AWS.events.on('complete', (response) => {
        try {
            const call = response.request && response.request[PATCHED];
            if (!call) {
                return;
            }
            const elapsed = Number(process.hrtime.bigint() - call.started) / 1e6;
            const error = response.error;
            const status = response.httpResponse ? response.httpResponse.statusCode : undefined;
            write({
                id: call.id,
                service: call.service,
                operation: call.operation,
                params: call.params,
                http_status: typeof status === 'number' && status > 0 ? status : null,
                error_code: error ? String(error.code || error.name || 'Error') : null,
                error_message: error ? v2ErrorText(error, response.httpResponse) : null,
                duration_ms: Math.round(elapsed * 1000) / 1000,
                attempts: (response.retryCount || 0) + 1,
            });
        } catch (_) {
            // never in the call's way
        }
    });
}

function v2ErrorText(error, http) {
    // An error page a web server answered instead of the service (moto's server, for an
    // operation it lacks or fails on: HTML, status 500): v2 reports it as UnknownError or an XML
    // parser's error with no word of the page, so the page's first bytes are added, as
    // botocore's ResponseParserError quotes them (infrastructure.py reads them there).
    let text = error.message ? String(error.message) : '';
    const status = http ? http.statusCode : 0;
    const type = http && http.headers ? String(http.headers['content-type'] || '') : '';
    if (status >= 500 && type.toLowerCase().startsWith('text/html') && http.body) {
        text = `${text}: ${String(http.body).slice(0, MAX_STRING)}`;
    }
    return text ? text.slice(0, MAX_JSON) : null;
}

function isV2Core(exported) {
    return (
        exported &&
        (typeof exported === 'object' || typeof exported === 'function') &&
        own(exported, 'VERSION') &&
        own(exported, 'events') &&
        own(exported, 'config') &&
        typeof exported.VERSION === 'string' &&
        exported.VERSION.startsWith('2.') &&
        typeof exported.events.on === 'function' &&
        typeof exported.config.update === 'function'
    );
}

// --- the require hook ------------------------------------------------------------------------

const originalLoad = Module._load;
Module._load = function (request, parent, isMain) {
    const exported = originalLoad.apply(this, arguments);
    try {
        if (typeof request === 'string' && request.includes('smithy') && isV3Core(exported)) {
            patchV3(exported);
        } else if (typeof request === 'string' && request.includes('core') && isV2Core(exported)) {
            patchV2(exported);
        } else if (request === 'aws-sdk' && isV2Core(exported)) {
            patchV2(exported);
        }
    } catch (_) {
        // a recorder that cannot patch leaves the SDK as it is
    }
    return exported;
};
