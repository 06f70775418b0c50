// This is a generated file. Modifications will be overwritten.
import { BaseModel, Dict, Optional, transformValue } from '@amazon-web-services-cloudformation/cloudformation-cli-typescript-lib';
import { Exclude, Expose, Transform } from 'class-transformer';

export class ResourceModel extends BaseModel {
    @Exclude()
    public static readonly TYPE_NAME: string = 'CfnDebug::Fixture::TsNote';

    @Exclude()
    protected readonly IDENTIFIER_KEY_TABLENAME: string = '/properties/TableName';
    @Exclude()
    protected readonly IDENTIFIER_KEY_TITLE: string = '/properties/Title';

    @Expose({ name: 'TableName' })
    @Transform(
        ({value, obj}) =>
            transformValue(String, 'tableName', value, obj, []),
        {
            toClassOnly: true,
        }
    )
    tableName?: Optional<string>;
    @Expose({ name: 'Title' })
    @Transform(
        ({value, obj}) =>
            transformValue(String, 'title', value, obj, []),
        {
            toClassOnly: true,
        }
    )
    title?: Optional<string>;
    @Expose({ name: 'Text' })
    @Transform(
        ({value, obj}) =>
            transformValue(String, 'text', value, obj, []),
        {
            toClassOnly: true,
        }
    )
    text?: Optional<string>;

    @Exclude()
    public getPrimaryIdentifier(): Dict {
        const identifier: Dict = {};
        if (this.tableName != null) {
            identifier[this.IDENTIFIER_KEY_TABLENAME] = this.tableName;
        }

        if (this.title != null) {
            identifier[this.IDENTIFIER_KEY_TITLE] = this.title;
        }

        // only return the identifier if it can be used, i.e. if all components are present
        return Object.keys(identifier).length === 2 ? identifier : null;
    }

    @Exclude()
    public getAdditionalIdentifiers(): Array<Dict> {
        const identifiers: Array<Dict> = new Array<Dict>();
        // only return the identifiers if any can be used
        return identifiers.length === 0 ? null : identifiers;
    }
}

export class TypeConfigurationModel extends BaseModel {
}
