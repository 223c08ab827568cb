/** Operator commands on apps: publish a workflow as a new immutable version, delete, list. */
import type { AppVersion, InputSpec } from '../../domain/app-version.js';
import type { BackendLabels } from '../../domain/backend.js';
import { CoreError } from '../../domain/errors.js';
import { isUuid } from '../../domain/input-validation.js';
import { deriveInputs, parseWorkflow } from '../../domain/workflow.js';
import { refuseWithoutOutputNode } from '../../domain/output-nodes.js';
import type { AppVersionRepository } from '../../ports/app-version-repository.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { NodeCatalog } from '../../ports/node-catalog.js';
import type { AppVersionPage } from '../../ports/app-version-repository.js';
import { auditEntry, CLI_AUTHOR, type ChangeAuthor } from '../../domain/audit.js';
import { pageSize } from './page-limit.js';

export interface PublishCommand {
  readonly name: string;
  /** The parsed workflow file. */
  readonly workflow: unknown;
  /** Add a version to this app; a new app when absent. */
  readonly appId?: string;
  /** Only these input keys are exposed; all literal widget values when absent. */
  readonly expose?: readonly string[];
  /** Labels a backend must have to run this version (`--require k=v`). */
  readonly requireLabels?: BackendLabels;
}

export class ManageApps {
  constructor(
    private readonly versions: AppVersionRepository,
    private readonly catalog: NodeCatalog,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** @throws CoreError INVALID_WORKFLOW, INVALID_REQUEST */
  async publish(command: PublishCommand, author: ChangeAuthor = CLI_AUTHOR): Promise<AppVersion> {
    if (command.name.trim().length === 0) throw new CoreError('INVALID_REQUEST', 'An app needs a non-empty --name');
    if (command.appId !== undefined && !isUuid(command.appId)) throw new CoreError('INVALID_REQUEST', `--app must be an app id (a UUID), got "${command.appId}"`);
    const workflow = parseWorkflow(command.workflow);
    const classTypes = [...new Set(Object.values(workflow).map((n) => n.class_type))];
    const catalog = await this.catalog.describe(classTypes);
    refuseUnlistedCombos(deriveInputs(workflow, catalog));
    refuseWithoutOutputNode(workflow, catalog);
    const inputs = deriveInputs(workflow, catalog, command.expose);
    const version: AppVersion = {
      id: this.ids.uuid(),
      appId: command.appId ?? this.ids.uuid(),
      name: command.name.trim(),
      workflow,
      inputs,
      createdAt: this.clock.now(),
      deletedAt: null,
      ...(command.requireLabels && Object.keys(command.requireLabels).length > 0 ? { requireLabels: command.requireLabels } : {}),
    };
    await this.versions.create(version, auditEntry(author, 'app.publish', version.id, version.createdAt, this.ids.uuid()));
    return version;
  }

  /** Marks the version deleted (never removed). @throws CoreError APP_VERSION_NOT_FOUND */
  async delete(appVersionId: string, author: ChangeAuthor = CLI_AUTHOR): Promise<AppVersion> {
    const now = this.clock.now();
    const version = isUuid(appVersionId) ? await this.versions.markDeleted(appVersionId, now, auditEntry(author, 'app.delete', appVersionId, now, this.ids.uuid())) : null;
    if (!version) throw new CoreError('APP_VERSION_NOT_FOUND', `App version ${appVersionId} not found`);
    return version;
  }

  list(): Promise<AppVersion[]> {
    return this.versions.list();
  }

  /** A page of versions, newest first, deleted ones too with `includeDeleted`. @throws CoreError INVALID_REQUEST */
  listPage(options: { limit?: number; cursor?: string | null; includeDeleted?: boolean }): Promise<AppVersionPage> {
    return this.versions.listLive({ limit: pageSize(options.limit), after: options.cursor ?? null, includeDeleted: options.includeDeleted === true });
  }
}

/**
 * A COMBO value the backend does not list could never run: the published default would fail
 * every run. Combos without options (model files while no backend answered) are not checked.
 * @throws CoreError INVALID_WORKFLOW naming the node, the widget and the options
 */
function refuseUnlistedCombos(inputs: readonly InputSpec[]): void {
  for (const input of inputs) {
    if (input.type !== 'COMBO' || !input.options || input.options.length === 0) continue;
    if (input.options.includes(input.default as string | number)) continue;
    const shown = input.options.slice(0, 50).map((o) => JSON.stringify(o)).join(', ');
    const more = input.options.length > 50 ? `, … (${input.options.length} in all)` : '';
    throw new CoreError(
      'INVALID_WORKFLOW',
      `Node ${input.nodeId} (${input.nodeType}) widget ${input.widget}: ${JSON.stringify(input.default)} is not one of its options: ${shown}${more}`,
    );
  }
}
