import {
  type EventSink,
  emitEvent,
  type FlowSource,
  mergeFlowSources,
  type ToolCallOutcome,
} from "@agent/tools";
import type { ToolSource } from "./offered-tools.js";
import { broughtContent, EXTERNAL_TOOLS_UNTRUSTED, type FlowCall, type RunFlow } from "./run-flow.js";
import type { PendingCall, RunState } from "./run-state.js";

/**
 * Keeps one run's taint: which untrusted sources it took in. Before a turn's calls run it asks the
 * flow tracker what each would bring in, so all of them are judged with the whole turn's sources;
 * as each call settles, what it actually brought (it ran) joins the run's taint for good.
 */
export class RunTaint {
  readonly #state: RunState;
  readonly #flow: RunFlow;
  readonly #tools: ToolSource;
  readonly #events: EventSink | undefined;
  /** What each call of the current turn brings in, by its index in `pending`. */
  #turnSources: readonly (readonly FlowSource[])[] = [];
  /** The taint of each call of the turn that differs from {@link #turnTaint}, by index. */
  #callTaint: (readonly FlowSource[] | undefined)[] = [];
  /** The taint of the turn's calls that bring nothing in themselves. */
  #turnTaint: readonly FlowSource[] | undefined;
  /** Whether the taint grew since the run's record was last saved with it. */
  #unsaved = false;

  constructor(state: RunState, flow: RunFlow | undefined, tools: ToolSource, events: EventSink | undefined) {
    this.#state = state;
    this.#flow = flow ?? EXTERNAL_TOOLS_UNTRUSTED;
    this.#tools = tools;
    this.#events = events;
  }

  /**
   * Asks the tracker, before any call of the current turn runs, what each would bring in. Each call
   * is then judged with the run's sources, what arrived meanwhile, and what every OTHER call of the
   * turn brings in (see {@link taintOf}). Awaited only when the tracker answers with a promise.
   */
  judgeTurn(): undefined | Promise<undefined> {
    const state = this.#state;
    this.#takeArrivals();
    const calls = state.pending.map((call) => this.#flowCall(call));
    const answer = this.#flow.sourcesOf(calls, state.turns);
    if (isPromise(answer)) return answer.then((sources) => this.#judged(sources));
    return this.#judged(answer);
  }

  /**
   * The sources the call at `index` of the current turn is judged with, or `undefined` for a clean
   * one: a call made beside an untrusted read is judged as tainted as one made after it, but no call
   * is tainted by its own result.
   */
  taintOf(index: number): readonly FlowSource[] | undefined {
    return this.#callTaint[index] ?? this.#turnTaint;
  }

  /**
   * Adds what the settled call at `index` brought in (if it ran) and whatever arrived meanwhile to the
   * run's taint; `true` when the taint grew since it was last saved, and must be saved with this call.
   */
  settle(index: number, outcome: ToolCallOutcome): boolean {
    const sources = this.#turnSources[index];
    if (sources !== undefined && sources.length > 0 && broughtContent(outcome)) this.#add(sources);
    return this.takeUnsaved();
  }

  /**
   * Whether the taint grew since this was last asked (what arrived outside the calls included): the
   * caller saves it with its next update, so no growth is ever lost to a stop.
   */
  takeUnsaved(): boolean {
    this.#takeArrivals();
    const unsaved = this.#unsaved;
    this.#unsaved = false;
    return unsaved;
  }

  /** Adds what arrived outside the calls (a sampling request, say). */
  #takeArrivals(): void {
    const arrived = this.#flow.takeArrivals?.(this.#state.turns);
    if (arrived !== undefined && arrived.length > 0) this.#add(arrived);
  }

  #judged(sources: readonly (readonly FlowSource[])[]): undefined {
    this.#turnSources = sources;
    const bringing: number[] = [];
    for (let index = 0; index < sources.length; index += 1) {
      if ((sources[index]?.length ?? 0) > 0) bringing.push(index);
    }
    const run = this.#state.taint;
    // A call is never tainted by its own result, but it is by a file it acts on: a command run on
    // (or running) a file a tainted run wrote executes that run's content.
    const taintBy = (except: number): readonly FlowSource[] | undefined => {
      let taint: readonly FlowSource[] = run;
      for (const index of bringing) {
        const brought = sources[index] ?? [];
        taint = mergeFlowSources(taint, index === except ? brought.filter(isFile) : brought);
      }
      return taint.length > 0 ? taint : undefined;
    };
    this.#turnTaint = taintBy(-1);
    this.#callTaint = [];
    for (const index of bringing) this.#callTaint[index] = taintBy(index) ?? CLEAN;
    return undefined;
  }

  #add(sources: readonly FlowSource[]): boolean {
    const state = this.#state;
    const merged = mergeFlowSources(state.taint, sources);
    if (merged === state.taint) return false;
    const added = merged.slice(state.taint.length);
    state.taint = [...merged];
    this.#unsaved = true;
    if (this.#events) {
      for (const source of added) {
        emitEvent(this.#events, {
          type: "run_tainted",
          runId: state.runId,
          turn: source.turn,
          source: { ...source },
        });
      }
    }
    return true;
  }

  #flowCall(call: PendingCall): FlowCall {
    // The arguments are parsed only if the tracker reads them (the default one does not), once.
    let parsed = false;
    let input: unknown;
    return {
      toolName: call.toolName,
      tool: this.#tools.get(call.toolName),
      get input(): unknown {
        if (!parsed) {
          parsed = true;
          try {
            input = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
          } catch {
            input = undefined;
          }
        }
        return input;
      },
    };
  }
}

function isFile(source: FlowSource): boolean {
  return source.kind === "file";
}

// A call judged clean although the turn is tainted (only its own result would taint it).
const CLEAN: readonly FlowSource[] = Object.freeze([]);

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
