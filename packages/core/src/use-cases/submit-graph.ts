/**
 * Queues a run of a graph submitted as is (a Comfy API v2 job). The graph is checked against what
 * the pool can run before anything is queued (unknown node classes, values no backend offers:
 * INVALID_WORKFLOW naming each node), its asset references become the inputs of the hidden app
 * version of that graph, and the run is created like any other: the same limits, quota,
 * scheduling and records, so the job is also a run of `/api/v1`.
 * @module
 */
import { isMediaInputType, type AppVersion, type Workflow } from '../domain/app-version.js';
import { CoreError, type ErrorDetail } from '../domain/errors.js';
import type { LimitsConfig } from '../domain/limits.js';
import { addNodeProblem, firstNodeProblem, type NodeProblems } from '../domain/node-problems.js';
import { graphHash, readSubmittedGraph, withPlaceholders, type AssetReference } from '../domain/submitted-graph.js';
import { deriveInputs, type NodeInfo } from '../domain/workflow.js';
import { refuseWithoutOutputNode } from '../domain/output-nodes.js';
import type { AppVersionRepository } from '../ports/app-version-repository.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import { checkMediaInputs } from './check-media-inputs.js';
import type { Clock } from '../ports/clock.js';
import type { Executor } from '../ports/executor.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { IdempotencyHold, StoredResponse } from '../ports/idempotency-store.js';
import type { NodeCatalog } from '../ports/node-catalog.js';
import type { Run } from '../domain/run.js';
import { BACKEND_RETRY_AFTER_SECONDS, type CreateRun, type CreateRunResult } from './create-run.js';
import type { Principal } from './principal.js';

export interface SubmitGraphCommand {
  readonly principal: Principal;
  /** The submitted API-format graph, as parsed from the body. */
  readonly workflow: unknown;
  /** A claimed idempotency key: the run and its response are written in one transaction. */
  readonly idempotency?: { readonly hold: IdempotencyHold; respond(run: Run): StoredResponse };
}

export class SubmitGraph {
  constructor(
    private readonly versions: AppVersionRepository,
    private readonly assets: AssetRepository,
    private readonly catalog: NodeCatalog,
    private readonly executor: Executor,
    private readonly createRun: CreateRun,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly limits: LimitsConfig,
  ) {}

  /**
   * @throws CoreError WORKFLOWS_FORBIDDEN, WORKFLOW_FORMAT_UI, INVALID_WORKFLOW, MISSING_ASSET, and
   *   what creating a run throws (SERVICE_UNAVAILABLE, RATE_LIMITED, GPU_QUOTA_EXCEEDED)
   */
  async execute(command: SubmitGraphCommand): Promise<CreateRunResult> {
    const { account } = command.principal;
    if (this.limits.tiers[account.tier]?.workflows === false) {
      throw new CoreError('WORKFLOWS_FORBIDDEN', `The ${account.tier} tier may run published apps only, not submitted workflows`);
    }
    const { graph, references } = readSubmittedGraph(command.workflow);
    // With no backend to ask, the catalog knows only the core nodes: say so rather than call a custom node unknown.
    if (!(await this.executor.health()).available) {
      throw new CoreError('SERVICE_UNAVAILABLE', 'The execution backend is unreachable; try again shortly', { retryAfterSeconds: BACKEND_RETRY_AFTER_SECONDS });
    }
    const catalog = await this.catalog.describe([...new Set(Object.values(graph).map((n) => n.class_type))]);
    const placeheld = withPlaceholders(graph, references);
    this.refuseWhatNoBackendRuns(placeheld, catalog, references);
    refuseWithoutOutputNode(placeheld, catalog);

    const candidate = this.versionOf(placeheld, catalog, references);
    const inputs = Object.fromEntries(references.map((r) => [r.key, r.assetId]));
    // Checked before the version is stored, so a refused job leaves nothing behind.
    const problems = await checkMediaInputs(this.assets, account.id, candidate.inputs, inputs, this.clock.now());
    if (problems.length > 0) throw missingAssets(problems);
    const version = await this.versions.findOrCreateForGraph(candidate);
    try {
      return await this.createRun.execute({
        principal: command.principal,
        appVersionId: version.id,
        body: { inputs },
        ...(command.idempotency ? { idempotency: command.idempotency } : {}),
      });
    } catch (error) {
      // The only inputs of a submitted graph are its asset references.
      // An asset deleted or expired since it was checked.
      if (CoreError.hasCode(error, 'INVALID_INPUT')) throw missingAssets((error.details ?? []) as readonly ErrorDetail[]);
      throw error;
    }
  }

  /**
   * Node classes the catalog does not know, COMBO values outside the options it lists, models no
   * backend has, and assets given to a widget that takes no file: INVALID_WORKFLOW, every node named.
   */
  private refuseWhatNoBackendRuns(graph: Workflow, catalog: Readonly<Record<string, NodeInfo>>, references: readonly AssetReference[]): void {
    const problems: NodeProblems = {};
    for (const [nodeId, node] of Object.entries(graph)) {
      if (!catalog[node.class_type]) {
        addNodeProblem(problems, nodeId, { field: null, reason: 'unknown_node_class', message: `no backend has the node class ${node.class_type}` });
        continue;
      }
      const missing = this.executor.missingEverywhere({ workflow: { [nodeId]: node }, inputs: {} });
      if (missing) addNodeProblem(problems, nodeId, { field: null, reason: 'value_not_offered', message: missing });
    }
    const mediaKeys = new Set(references.map((r) => r.key));
    for (const input of deriveInputs(graph, catalog)) {
      if (mediaKeys.has(input.key)) {
        mediaKeys.delete(input.key);
        if (!isMediaInputType(input.type)) {
          addNodeProblem(problems, input.nodeId, { field: input.widget, reason: 'not_a_file_input', message: `${input.nodeType}.${input.widget} takes no file` });
        }
        continue;
      }
      if (input.type !== 'COMBO' || !input.options || input.options.length === 0 || !catalog[input.nodeType]) continue;
      if (input.options.includes(input.default as string | number)) continue;
      addNodeProblem(problems, input.nodeId, {
        field: input.widget,
        reason: 'value_not_in_list',
        message: `${JSON.stringify(input.default)} is not one of the ${input.options.length} options of ${input.nodeType}.${input.widget}`,
      });
    }
    const first = firstNodeProblem(problems);
    if (first) {
      throw new CoreError('INVALID_WORKFLOW', `${first.nodes} node(s) cannot run on this pool; node ${first.nodeId}: ${first.problem.message}`, {
        details: { node_errors: problems },
      });
    }
  }

  /** The hidden app version of this graph (not stored yet): its asset references are its only inputs. */
  private versionOf(graph: Workflow, catalog: Readonly<Record<string, NodeInfo>>, references: readonly AssetReference[]): AppVersion & { graphHash: string } {
    const hash = graphHash(graph);
    return {
      id: this.ids.uuid(),
      appId: this.ids.uuid(),
      name: `Submitted workflow ${hash.slice(0, 12)}`,
      workflow: graph,
      inputs: deriveInputs(graph, catalog, [...new Set(references.map((r) => r.key))]),
      createdAt: this.clock.now(),
      deletedAt: null,
      graphHash: hash,
    };
  }
}

/** Asset inputs that do not fit, told by node as MISSING_ASSET. */
function missingAssets(problems: readonly ErrorDetail[]): CoreError {
  const byNode: NodeProblems = {};
  for (const d of problems) {
    const [nodeId = '', field = null] = d.key.split(':');
    addNodeProblem(byNode, nodeId, { field, reason: 'missing_asset', message: d.reason });
  }
  return new CoreError('MISSING_ASSET', 'An asset the workflow refers to is not one of your assets, or not of the kind its node takes', {
    details: { node_errors: byNode },
  });
}
