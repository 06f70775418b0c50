import {
    Action,
    BaseResource,
    exceptions,
    handlerEvent,
    LoggerProxy,
    OperationStatus,
    Optional,
    ProgressEvent,
    ResourceHandlerRequest,
    SessionProxy,
} from '@amazon-web-services-cloudformation/cloudformation-cli-typescript-lib';
import {
    AttributeValue,
    DeleteItemCommand,
    DynamoDBClient,
    GetItemCommand,
    ListTablesCommand,
    PutItemCommand,
    ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { ResourceModel, TypeConfigurationModel } from './models';

interface CallbackContext extends Record<string, any> {}

type Item = Record<string, AttributeValue>;
type Progress = ProgressEvent<ResourceModel, CallbackContext>;

// Every item this type writes carries the mark (LIST finds the notes by it).
const MARK = 'cfndebug-fixture-tsnote';
// The planted contract fault cfn-debug's tests look for (sample_events/fault-delete-returns-
// model.json): deleting a note whose title starts with this answers SUCCESS with the model,
// which a DELETE must never return.
const PLANTED = 'planted-';

// The DynamoDB client of the AWS SDK for JavaScript v3, with the caller's credentials from the
// library's session (the library itself builds v2 clients). v3 reads AWS_ENDPOINT_URL.
function dynamodb(session: Optional<SessionProxy>, region: string): DynamoDBClient {
    if (!(session instanceof SessionProxy)) {
        throw new exceptions.InvalidCredentials('no credentials in the request');
    }
    const credentials = session.configuration.credentials as {
        accessKeyId: string;
        secretAccessKey: string;
        sessionToken?: string;
    };
    return new DynamoDBClient({
        region: region || session.configuration.region,
        credentials: {
            accessKeyId: credentials.accessKeyId,
            secretAccessKey: credentials.secretAccessKey,
            sessionToken: credentials.sessionToken,
        },
    });
}

function key(model: ResourceModel): [string, Item] {
    if (!model.tableName || !model.title) {
        throw new exceptions.InvalidRequest('TableName and Title are required');
    }
    return [model.tableName, { pk: { S: `note#${model.title}` } }];
}

function toModel(table: string, item: Item): ResourceModel {
    return ResourceModel.deserialize({
        TableName: table,
        Title: item.pk.S.split('#').slice(1).join('#'),
        Text: item.text.S,
    });
}

function missing(error: any): boolean {
    return error && error.name === 'ResourceNotFoundException';
}

async function get(client: DynamoDBClient, model: ResourceModel): Promise<Item | null> {
    const [table, pk] = key(model);
    try {
        const answer = await client.send(
            new GetItemCommand({ TableName: table, Key: pk, ConsistentRead: true })
        );
        return answer.Item || null;
    } catch (error) {
        if (missing(error)) {
            return null; // no table: no note either
        }
        throw error;
    }
}

function success(model: ResourceModel | null): Progress {
    return ProgressEvent.builder<Progress>()
        .status(OperationStatus.Success)
        .resourceModel(model)
        .build();
}

class Resource extends BaseResource<ResourceModel> {
    @handlerEvent(Action.Create)
    public async create(
        session: Optional<SessionProxy>,
        request: ResourceHandlerRequest<ResourceModel>,
        callbackContext: CallbackContext,
        logger: LoggerProxy,
        typeConfiguration: TypeConfigurationModel
    ): Promise<Progress> {
        const model = new ResourceModel(request.desiredResourceState);
        const client = dynamodb(session, request.region);
        const [table, pk] = key(model);
        console.log(`putting note ${model.title} into ${table}`);
        try {
            await client.send(
                new PutItemCommand({
                    TableName: table,
                    Item: {
                        ...pk,
                        text: { S: model.text || '' },
                        mark: { S: MARK },
                        token: { S: request.clientRequestToken },
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                })
            );
        } catch (error) {
            if (missing(error)) {
                throw new exceptions.InvalidRequest(`table ${table} does not exist`);
            }
            if (!error || error.name !== 'ConditionalCheckFailedException') {
                throw error;
            }
            const existing = await get(client, model);
            if (!existing || existing.token.S !== request.clientRequestToken) {
                throw new exceptions.AlreadyExists(ResourceModel.TYPE_NAME, `${table}|${model.title}`);
            }
            console.log('the same request again: the note it made is the answer');
        }
        return success(
            new ResourceModel({ tableName: table, title: model.title, text: model.text || '' })
        );
    }

    @handlerEvent(Action.Read)
    public async read(
        session: Optional<SessionProxy>,
        request: ResourceHandlerRequest<ResourceModel>,
        callbackContext: CallbackContext,
        logger: LoggerProxy,
        typeConfiguration: TypeConfigurationModel
    ): Promise<Progress> {
        const model = new ResourceModel(request.desiredResourceState);
        const item = await get(dynamodb(session, request.region), model);
        if (!item) {
            throw new exceptions.NotFound(ResourceModel.TYPE_NAME, `${model.tableName}|${model.title}`);
        }
        return success(toModel(model.tableName, item));
    }

    @handlerEvent(Action.Update)
    public async update(
        session: Optional<SessionProxy>,
        request: ResourceHandlerRequest<ResourceModel>,
        callbackContext: CallbackContext,
        logger: LoggerProxy,
        typeConfiguration: TypeConfigurationModel
    ): Promise<Progress> {
        const model = new ResourceModel(request.desiredResourceState);
        const previous = request.previousResourceState
            ? new ResourceModel(request.previousResourceState)
            : null;
        if (previous && (previous.tableName !== model.tableName || previous.title !== model.title)) {
            throw new exceptions.NotUpdatable('TableName and Title cannot be changed');
        }
        const client = dynamodb(session, request.region);
        const existing = await get(client, model);
        if (!existing) {
            throw new exceptions.NotFound(ResourceModel.TYPE_NAME, `${model.tableName}|${model.title}`);
        }
        const [table, pk] = key(model);
        await client.send(
            new PutItemCommand({
                TableName: table,
                Item: { ...pk, text: { S: model.text || '' }, mark: { S: MARK }, token: existing.token },
            })
        );
        return success(new ResourceModel({ tableName: table, title: model.title, text: model.text }));
    }

    @handlerEvent(Action.Delete)
    public async delete(
        session: Optional<SessionProxy>,
        request: ResourceHandlerRequest<ResourceModel>,
        callbackContext: CallbackContext,
        logger: LoggerProxy,
        typeConfiguration: TypeConfigurationModel
    ): Promise<Progress> {
        const model = new ResourceModel(request.desiredResourceState);
        const [table, pk] = key(model);
        if (model.title.startsWith(PLANTED)) {
            return success(model); // the planted fault: a DELETE that returns its model
        }
        try {
            await dynamodb(session, request.region).send(
                new DeleteItemCommand({
                    TableName: table,
                    Key: pk,
                    ConditionExpression: 'attribute_exists(pk)',
                })
            );
        } catch (error) {
            if (missing(error) || (error && error.name === 'ConditionalCheckFailedException')) {
                throw new exceptions.NotFound(ResourceModel.TYPE_NAME, `${table}|${model.title}`);
            }
            throw error;
        }
        return success(null);
    }

    @handlerEvent(Action.List)
    public async list(
        session: Optional<SessionProxy>,
        request: ResourceHandlerRequest<ResourceModel>,
        callbackContext: CallbackContext,
        logger: LoggerProxy,
        typeConfiguration: TypeConfigurationModel
    ): Promise<Progress> {
        const client = dynamodb(session, request.region);
        const models: ResourceModel[] = [];
        const tables = await client.send(new ListTablesCommand({}));
        for (const table of tables.TableNames || []) {
            let start: Item | undefined;
            do {
                const page = await client.send(
                    new ScanCommand({
                        TableName: table,
                        FilterExpression: 'mark = :mark',
                        ExpressionAttributeValues: { ':mark': { S: MARK } },
                        ExclusiveStartKey: start,
                    })
                );
                models.push(...(page.Items || []).map((item) => toModel(table, item)));
                start = page.LastEvaluatedKey;
            } while (start);
        }
        return ProgressEvent.builder<Progress>()
            .status(OperationStatus.Success)
            .resourceModels(models)
            .build();
    }
}

// @ts-ignore // if running against v1.0.1 or earlier of plugin the 5th argument is not known but best to ignored (runtime code may warn)
export const resource = new Resource(ResourceModel.TYPE_NAME, ResourceModel, null, null, TypeConfigurationModel)!;

// Entrypoint for production usage after registered in CloudFormation
export const entrypoint = resource.entrypoint;

// Entrypoint used for local testing
export const testEntrypoint = resource.testEntrypoint;
