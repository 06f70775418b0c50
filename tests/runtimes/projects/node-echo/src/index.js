'use strict';
// Handlers for cfn-debug's Node runtime tests: event.mode picks what the handler does.
const { spawn } = require('child_process');

exports.handler = async (event, context) => {
    // a CloudFormation HandlerRequest (what cfn-debug sends a function other than a test
    // entry point) carries the model in requestData.resourceProperties
    const model = event.requestData && event.requestData.resourceProperties;
    switch (event.mode || (model && model.Mode)) {
        case 'context':
            return {
                awsRequestId: context.awsRequestId,
                invokedFunctionArn: context.invokedFunctionArn,
                functionName: context.functionName,
                functionVersion: context.functionVersion,
                memoryLimitInMB: context.memoryLimitInMB,
                logGroupName: context.logGroupName,
                logStreamName: context.logStreamName,
                remaining: context.getRemainingTimeInMillis(),
                waits: context.callbackWaitsForEmptyEventLoop,
                greeting: process.env.GREETING,
                runtimeApi: process.env.AWS_LAMBDA_RUNTIME_API,
                pid: process.pid,
            };
        case 'log':
            console.log('a log line', { n: 1 });
            console.error('an error line');
            process.stdout.write('a raw line\n');
            return { logged: true };
        case 'escape':
            process.stdout.write('\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\n');
            console.log('\x1b[1mbold\x1b[0m');
            return { status: 'SUCCESS', resourceModel: model };
        case 'throw':
            throw new TypeError('the handler threw');
        case 'reject':
            return Promise.reject(new RangeError('the promise was rejected'));
        case 'badname': {
            const error = new Error('a name no header can carry');
            error.name = 'Bad\r\nX-Injected: 1 \u00e9';
            throw error;
        }
        case 'never':
            return new Promise(() => {});
        case 'spawn': {
            const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
            child.unref();
            return { pids: [process.pid, child.pid] };
        }
        default:
            return event;
    }
};

exports.callback = (event, context, callback) => {
    setTimeout(() => callback(null, { via: 'callback', awsRequestId: context.awsRequestId }), 1);
};

exports.drain = (event, context, callback) => {
    // Calls back at once, then changes the answer from a timer: the answer says whether it was
    // serialized after the event loop drained (callbackWaitsForEmptyEventLoop true) or at once.
    const answer = { drained: false };
    if (event.waits === false) {
        context.callbackWaitsForEmptyEventLoop = false;
    }
    callback(null, answer);
    setTimeout(() => {
        answer.drained = true;
    }, 20);
};

exports.spin = async () => {
    for (;;) {
        // never answers: the endpoint's timeout must kill this process
    }
};
