import type { RunState, TaskState } from '../core/states.js';

export interface StateColor {
  fill: string;
  stroke: string;
  text: string;
}

// The same palette as the status comment's Mermaid graph: blue in flight, yellow in review,
// green merged, red stopped by failure or a person, grey blocked or cancelled.
const BLUE = { fill: '#0969da', stroke: '#0550ae', text: '#ffffff' };
const YELLOW = { fill: '#fff8c5', stroke: '#bf8700', text: '#1f2328' };
const GREEN = { fill: '#2da44e', stroke: '#1a7f37', text: '#ffffff' };
const RED = { fill: '#cf222e', stroke: '#a40e26', text: '#ffffff' };
const GREY = { fill: '#d0d7de', stroke: '#6e7781', text: '#1f2328' };
const WHITE = { fill: '#ffffff', stroke: '#6e7781', text: '#1f2328' };

export const TASK_COLORS: Readonly<Record<TaskState, StateColor>> = {
  pending: WHITE,
  dispatched: BLUE,
  running: BLUE,
  in_review: YELLOW,
  approved: YELLOW,
  merging: YELLOW,
  merged: GREEN,
  failed: RED,
  vetoed: RED,
  rejected: RED,
  blocked: GREY,
  cancelled: GREY,
};

export const RUN_COLORS: Readonly<Record<RunState, StateColor>> = {
  planning: WHITE,
  plan_invalid: RED,
  awaiting_approval: YELLOW,
  running: BLUE,
  held: YELLOW,
  done: GREEN,
  failed: RED,
  cancelled: GREY,
};
