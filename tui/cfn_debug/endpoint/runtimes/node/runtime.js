'use strict';
/*
 * cfn-debug's Lambda runtime for one Node.js handler: a Runtime API client of its own (no
 * aws-lambda-ric, which needs a native build).
 *
 * Started by the embedded endpoint as `node [NODE_ARGS] runtime.js` with cwd = LAMBDA_TASK_ROOT
 * and the Lambda environment: AWS_LAMBDA_RUNTIME_API (the worker's own listener on loopback),
 * _HANDLER ("dist/handlers.entrypoint": the module dist/handlers under LAMBDA_TASK_ROOT, its
 * export entrypoint), AWS_LAMBDA_FUNCTION_NAME/VERSION/MEMORY_SIZE, AWS_LAMBDA_LOG_GROUP_NAME ...
 *
 * What the handler sees is what Lambda's Node runtime gives it: a context with awsRequestId,
 * invokedFunctionArn, functionName, functionVersion, memoryLimitInMB, logGroupName,
 * logStreamName, getRemainingTimeInMillis() and callbackWaitsForEmptyEventLoop; async handlers,
 * promise-returning handlers and callback handlers (handler.length >= 3); console lines written
 * as "TIMESTAMP\tREQUEST_ID\tLEVEL\tmessage" with the message's newlines turned into "\r" (one
 * record each, as CloudWatch gets them); a thrown error or a rejected promise posted as
 * {errorType, errorMessage, trace} with the stack; a module that fails to load posted to
 * /runtime/init/error (Runtime.ImportModuleError, Runtime.HandlerNotFound,
 * Runtime.UserCodeSyntaxError, Runtime.MalformedHandlerName) before the process exits.
 *
 * callbackWaitsForEmptyEventLoop is Lambda's: when a handler calls its callback (the third
 * argument) with a result while the flag is true (the default), the answer is posted once the
 * event loop has nothing left to run (the handler's timers, sockets and pending promises done),
 * and serialized then; with the flag false it is posted at once. An error passed to the
 * callback, context.done/succeed/fail and a settled promise answer at once, as Lambda's runtime
 * does.
 *
 * Log attribution (the endpoint's worker.py): stdout and stderr are one pipe; before posting an
 * answer the runtime writes SENTINEL + request id + "\n" to it. Everything written before that
 * line belongs to the invocation. Writes go through fs.writeSync, in order with the handler's own
 * process.stdout writes (synchronous on Linux pipes).
 *
 * When the Runtime API is gone (the endpoint stopped or was killed), the process exits.
 */

const fs = require('fs');
const net = require('net');
const path = require('path');
const url = require('url');
const util = require('util');

const SENTINEL = '\x1e__cfn_debug_end__ ';
const RUNTIME = '/2018-06-01/runtime';
const ERROR_TYPE_HEADER = 'Lambda-Runtime-Function-Error-Type';

let currentRequestId;

// --- output --------------------------------------------------------------------------------

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function writeOut(text) {
    let data = Buffer.from(text, 'utf8');
    while (data.length > 0) {
        try {
            const written = fs.writeSync(1, data);
            data = data.subarray(written);
        } catch (error) {
            if (error.code === 'EAGAIN') {
                Atomics.wait(SLEEPER, 0, 0, 1); // the pipe is full: the endpoint reads it soon
                continue;
            }
            return; // the pipe is gone: nothing to write to
        }
    }
}

function logLine(level, args) {
    const message = util.format(...args).replace(/\r?\n/g, '\r');
    writeOut(`${new Date().toISOString()}\t${currentRequestId}\t${level}\t${message}\n`);
}

function patchConsole() {
    const levels = {
        log: 'INFO',
        info: 'INFO',
        warn: 'WARN',
        error: 'ERROR',
        debug: 'DEBUG',
        trace: 'TRACE',
    };
    for (const [name, level] of Object.entries(levels)) {
        if (name === 'trace') {
            console.trace = (...args) => {
                const error = new Error(util.format(...args));
                error.name = 'Trace';
                logLine(level, [error.stack]);
            };
        } else {
            console[name] = (...args) => logLine(level, args);
        }
    }
    console.fatal = (...args) => logLine('FATAL', args);
}

function markEnd(requestId) {
    writeOut(`${SENTINEL}${requestId}\n`);
}

// --- the Runtime API -------------------------------------------------------------------------

const [apiHost, apiPort] = (() => {
    const api = process.env.AWS_LAMBDA_RUNTIME_API || '';
    const colon = api.lastIndexOf(':');
    return [api.slice(0, colon) || '127.0.0.1', Number(api.slice(colon + 1)) || 9001];
})();

// One keep-alive connection to the Runtime API, one request at a time, written as one segment
// and read by Content-Length (the endpoint's Runtime API answers so): leaner per invocation
// than Node's http client. Unreferenced while idle, so an empty event loop is still seen
// (callbackWaitsForEmptyEventLoop, a promise that never settles).
let socket = null;
let pending = null; // {resolve, reject} of the request in flight
let received = Buffer.alloc(0);

function dropSocket(error) {
    const waiting = pending;
    pending = null;
    if (socket) {
        socket.destroy();
        socket = null;
    }
    received = Buffer.alloc(0);
    if (waiting) {
        waiting.reject(error || new Error('the Runtime API closed the connection'));
    }
}

function parseResponse() {
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) {
        return null;
    }
    const lines = received.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers = {};
    for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) {
            headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
    }
    const length = Number(headers['content-length'] || 0);
    if (received.length < end + 4 + length) {
        return null;
    }
    const body = Buffer.from(received.subarray(end + 4, end + 4 + length));
    received = received.subarray(end + 4 + length);
    return { status, headers, body };
}

function onData(chunk) {
    received = received.length ? Buffer.concat([received, chunk]) : chunk;
    const response = parseResponse();
    if (response && pending) {
        const waiting = pending;
        pending = null;
        socket.unref();
        if (response.headers.connection === 'close') {
            socket.destroy();
            socket = null;
        }
        waiting.resolve(response);
    }
}

function connect() {
    socket = net.connect({ host: apiHost, port: apiPort });
    socket.setNoDelay(true);
    socket.on('data', onData);
    socket.on('error', (error) => dropSocket(error));
    socket.on('close', () => dropSocket());
}

function call(method, route, body, headers) {
    return new Promise((resolve, reject) => {
        if (socket === null) {
            connect();
        }
        const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
        let head = `${method} ${RUNTIME}${route} HTTP/1.1\r\nHost: ${apiHost}:${apiPort}\r\n`;
        for (const [name, value] of Object.entries(headers || {})) {
            // a handler's error name goes into a header: one line of printable ASCII
            head += `${name}: ${String(value).replace(/[^\x20-\x7e]/g, '?')}\r\n`;
        }
        head += `Content-Length: ${payload.length}\r\n\r\n`;
        pending = { resolve, reject };
        socket.ref();
        socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    });
}

function gone(error) {
    // The endpoint is not there any more: this process has no one to work for.
    writeOut(`[cfn-debug] the Runtime API is gone (${error && error.code}); exiting\n`);
    process.exit(70);
}

// --- errors ----------------------------------------------------------------------------------

class Fault extends Error {
    constructor(errorType, message, trace) {
        super(message);
        this.errorType = errorType;
        this.trace = trace;
    }
}

function ownFrames(lines) {
    // The handler's frames: this file's own (the loop that called it) are left out.
    return lines.filter((line) => !line.includes(__filename));
}

function errorBody(error) {
    if (error instanceof Fault) {
        return {
            errorType: error.errorType,
            errorMessage: error.message,
            trace: error.trace || [],
        };
    }
    if (error instanceof Error) {
        const stack = typeof error.stack === 'string' ? ownFrames(error.stack.split('\n')) : [];
        return {
            errorType: error.name || 'Error',
            errorMessage: error.message === undefined ? '' : String(error.message),
            trace: stack,
        };
    }
    let message;
    try {
        message = typeof error === 'string' ? error : JSON.stringify(error);
    } catch (_) {
        message = String(error);
    }
    return { errorType: typeof error, errorMessage: String(message), trace: [] };
}

function logError(body) {
    const line = [`${body.errorType}: ${body.errorMessage}`, ...body.trace.slice(1)].join('\r');
    logLine('ERROR', [`Invoke Error \t${line}`]);
}

// --- the handler -----------------------------------------------------------------------------

function splitHandler(handler) {
    const slash = handler.lastIndexOf('/');
    const rest = handler.slice(slash + 1);
    const dot = rest.indexOf('.');
    if (dot < 1 || dot === rest.length - 1) {
        throw new Fault('Runtime.MalformedHandlerName', `Bad handler ${handler}`);
    }
    return [handler.slice(0, slash + 1) + rest.slice(0, dot), rest.slice(dot + 1)];
}

function moduleFile(root, moduleName) {
    const base = path.resolve(root, moduleName);
    for (const extension of ['.js', '.mjs', '.cjs']) {
        if (fs.existsSync(base + extension)) {
            return base + extension;
        }
    }
    if (fs.existsSync(base) && fs.statSync(base).isFile()) {
        return base;
    }
    return null;
}

async function loadModule(root, moduleName) {
    const file = moduleFile(root, moduleName);
    if (file === null) {
        throw new Fault(
            'Runtime.ImportModuleError',
            `Error: Cannot find module '${moduleName}' (looked for ${path.resolve(root, moduleName)}` +
                '.js, .mjs, .cjs: is the project built?)'
        );
    }
    try {
        if (file.endsWith('.mjs')) {
            return await import(url.pathToFileURL(file).href);
        }
        try {
            return require(file);
        } catch (error) {
            if (error && error.code === 'ERR_REQUIRE_ESM') {
                return await import(url.pathToFileURL(file).href);
            }
            throw error;
        }
    } catch (error) {
        if (error instanceof SyntaxError) {
            throw new Fault(
                'Runtime.UserCodeSyntaxError',
                `${error.name}: ${error.message}`,
                String(error.stack || '').split('\n')
            );
        }
        if (error && error.code === 'MODULE_NOT_FOUND') {
            throw new Fault(
                'Runtime.ImportModuleError',
                `Error: ${error.message}`,
                String(error.stack || '').split('\n')
            );
        }
        throw error;
    }
}

async function loadHandler(root, handler) {
    const [moduleName, attribute] = splitHandler(handler);
    const loaded = await loadModule(root, moduleName);
    let target = loaded;
    for (const part of attribute.split('.')) {
        target = target === undefined || target === null ? undefined : target[part];
    }
    if (typeof target !== 'function') {
        throw new Fault(
            'Runtime.HandlerNotFound',
            `${moduleName}.${attribute} is undefined or not exported`
        );
    }
    return target;
}

function makeContext(headers) {
    const deadline = Number(headers['lambda-runtime-deadline-ms']) || Date.now() + 3000;
    const env = process.env;
    const context = {
        awsRequestId: headers['lambda-runtime-aws-request-id'],
        invokedFunctionArn: headers['lambda-runtime-invoked-function-arn'],
        functionName: env.AWS_LAMBDA_FUNCTION_NAME,
        functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
        memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
        logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
        logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
        callbackWaitsForEmptyEventLoop: true,
        getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
    };
    return context;
}

// The answer a callback handler gave with callbackWaitsForEmptyEventLoop true, posted when the
// event loop is empty (onEmptyLoop).
let answerOnEmptyLoop = null;

function runHandler(handler, event, context) {
    return new Promise((resolve, reject) => {
        let settled = false;
        const settle = (error, result) => {
            if (settled) {
                return;
            }
            settled = true;
            if (error !== undefined && error !== null) {
                reject(error);
            } else {
                resolve(result);
            }
        };
        const callback = (error, result) => {
            if (settled || answerOnEmptyLoop) {
                return;
            }
            if ((error === undefined || error === null) && context.callbackWaitsForEmptyEventLoop) {
                answerOnEmptyLoop = () => settle(null, result);
            } else {
                settle(error, result);
            }
        };
        context.done = settle;
        context.succeed = (result) => settle(null, result);
        context.fail = (error) => settle(error === undefined ? new Error('failed') : error);
        let returned;
        try {
            returned = handler(event, context, callback);
        } catch (error) {
            settle(error);
            return;
        }
        if (returned && typeof returned.then === 'function') {
            returned.then(
                (result) => settle(null, result),
                (error) => settle(error === undefined || error === null ? new Error(String(error)) : error)
            );
        } else if (handler.length < 3) {
            settle(null, returned);
        }
    });
}

// --- the loop --------------------------------------------------------------------------------

let inFlight = null; // the request id of the invocation being run

async function postError(route, body) {
    await call('POST', route, JSON.stringify(body), {
        'Content-Type': 'application/json',
        [ERROR_TYPE_HEADER]: body.errorType,
    });
}

function onUncaught(error) {
    // An error outside the handler's promise chain (a timer's throw, an unhandled rejection): as
    // Lambda, the invocation fails with it and the process ends.
    const body = errorBody(error);
    if (!(error instanceof Error)) {
        body.errorType = 'Runtime.UnhandledPromiseRejection';
    }
    logError(body);
    const requestId = inFlight;
    markEnd(requestId || 'init');
    const route = requestId ? `/invocation/${requestId}/error` : '/init/error';
    postError(route, body).then(
        () => process.exit(129),
        () => process.exit(129)
    );
}

function onEmptyLoop() {
    // Nothing is left to run. A callback's answer waiting for this moment is posted now;
    // otherwise the handler's promise never settled (nor its callback was called): as Lambda,
    // the invocation fails and the runtime exits.
    if (answerOnEmptyLoop) {
        const answer = answerOnEmptyLoop;
        answerOnEmptyLoop = null;
        answer(); // resolving the handler's promise gives the loop work again
        return;
    }
    const requestId = inFlight;
    if (!requestId) {
        return;
    }
    inFlight = null;
    const body = {
        errorType: 'Runtime.NodeJsExit',
        errorMessage:
            'Error: Runtime exited without providing a reason (the handler returned a promise ' +
            'that never settled, or never called its callback, and nothing else was left to run)',
        trace: [],
    };
    logError(body);
    markEnd(requestId);
    postError(`/invocation/${requestId}/error`, body).then(
        () => process.exit(0),
        () => process.exit(0)
    );
}

async function main() {
    patchConsole();
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', (reason) => onUncaught(reason));
    process.on('beforeExit', onEmptyLoop);
    const root = process.env.LAMBDA_TASK_ROOT || process.cwd();
    let handler;
    try {
        handler = await loadHandler(root, process.env._HANDLER || '');
    } catch (error) {
        const body = errorBody(error);
        logError(body);
        markEnd('init');
        try {
            await postError('/init/error', body);
        } catch (postError_) {
            gone(postError_);
        }
        process.exit(1);
    }
    for (;;) {
        let next;
        try {
            next = await call('GET', '/invocation/next');
        } catch (error) {
            gone(error);
        }
        const context = makeContext(next.headers);
        const requestId = context.awsRequestId;
        currentRequestId = requestId;
        inFlight = requestId;
        let answer;
        let failure;
        try {
            const text = next.body.toString('utf8');
            const event = text ? JSON.parse(text) : {};
            const result = await runHandler(handler, event, context);
            answer = JSON.stringify(result === undefined ? null : result);
        } catch (error) {
            failure = errorBody(error);
        }
        inFlight = null;
        answerOnEmptyLoop = null;
        try {
            if (failure) {
                logError(failure);
                markEnd(requestId);
                await postError(`/invocation/${requestId}/error`, failure);
            } else {
                markEnd(requestId);
                await call('POST', `/invocation/${requestId}/response`, answer, {
                    'Content-Type': 'application/json',
                });
            }
        } catch (error) {
            gone(error);
        }
    }
}

main();
