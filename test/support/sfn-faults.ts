/**
 * Faults injected into the local Step Functions endpoint (local/stepfunctions.ts) through its `intercept` hook: the
 * next calls of an action answer an AWS error, or act late, for the tests of what the code does when Step Functions
 * fails or is slow.
 */
import { type LocalStepFunctions, SfnError } from '../../local/stepfunctions.ts';

type Input = Record<string, unknown>;

export class SfnFaults {
  private readonly faults = new Map<string, { type: string; status: number; times: number; only?: (input: Input) => boolean }>();
  private readonly delays = new Map<string, number>();

  /**
   * The next `times` calls of `action` answer `type` with `status` as AWS would (ThrottlingException 400,
   * ServiceUnavailable 500, ...) and do nothing. With `only`, just the calls whose input it accepts (one execution's
   * DescribeExecution, say) count and fail.
   */
  failNext(action: string, type: string, status: number, times = 1, only?: (input: Input) => boolean): void {
    this.faults.set(action, { type, status, times, ...(only ? { only } : {}) });
  }

  /** The next call of `action` acts only after `ms`: for a request that reaches Step Functions late. */
  delayNext(action: string, ms: number): void {
    this.delays.set(action, ms);
  }

  readonly intercept = async (action: string, input: Input): Promise<void> => {
    const delay = this.delays.get(action);
    this.delays.delete(action);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    const fault = this.faults.get(action);
    if (fault && (!fault.only || fault.only(input)) && fault.times-- > 0) {
      throw new SfnError(fault.type, `Injected failure of ${action}`, fault.status);
    }
  };
}

const installed = new WeakMap<LocalStepFunctions, SfnFaults>();

/** The faults of `sfn`, installed on first use. */
export function sfnFaults(sfn: LocalStepFunctions): SfnFaults {
  let faults = installed.get(sfn);
  if (!faults) {
    faults = new SfnFaults();
    sfn.intercept = faults.intercept;
    installed.set(sfn, faults);
  }
  return faults;
}
