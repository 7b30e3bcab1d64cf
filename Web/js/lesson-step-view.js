// A lesson step's view (issue 34): the step's molecule and view link read as Explore reads them —
// its Explore address, the model options Explore would ask for, and a short summary of the view in
// words (a camera as `view=` text and back: view-link.js's cameraWords and readCamera). Used by the lesson player
// (lesson-player.js), its offline prefetch (lesson-offline.js), the editor (lessons.js) and
// Explore's Add this view as a step (lesson-add-step.js).
//
//   stepHash(step)         → "#/explore/{molecule}?{view}", the step's view link in Explore
//   modelOptionsOf(state)  → the model options Explore asks for with a view link's state
//   describeView(view)     → a step's view (its link's query) in words, for the editor and the dialog
import { readViewLink } from './view-link.js';
import { colours, styles } from './model-options.js';

const HIDE = ['water', 'ligands', 'hydrogens'];

/** The hash of Explore's view link for a step: #/explore/{molecule}?{view}. */
export const stepHash = (step) => `#/explore/${encodeURIComponent(step.molecule)}${step.view ? `?${step.view}` : ''}`;

/**
 * The model options Explore asks for when it opens a view link whose state is `state`
 * (readViewLink's): its controls set as view-link.js's setControls sets them, read back as
 * explore.js's modelOptions reads them — same keys, same order, same defaults (the page's own:
 * the first style, Automatic colours, the Hide boxes as the page has them).
 */
export function modelOptionsOf(state) {
  const $ = (id) => document.getElementById(id);
  const known = (list, value) => list.some((item) => item.id === value);
  const firstStyle = $('style')?.options[0]?.value ?? styles()[0]?.id ?? 'auto';
  const style = known(styles(), state?.style) ? state.style : firstStyle;
  const colour = state?.color === 'auto' ? '' : state?.color;
  const defaultHide = HIDE.filter((w) => $(`hide-${w}`)?.defaultChecked ?? w === 'water');
  const hidden = state?.hide ? state.hide.split(',') : defaultHide;
  const options = { style, hide: HIDE.filter((w) => hidden.includes(w)).join(',') || 'none' };
  if (colour && known(colours(), colour)) options.color = colour;
  if (state?.highlight?.trim()) options.highlight = state.highlight.trim();
  if (state?.sticks) options.sticks = state.sticks;
  if (state?.site) options.site = state.site;
  return options;
}

/** A short summary of a step's view (the query of its view link) in words. */
export function describeView(view) {
  const state = view ? readViewLink(`#/explore/x?${view}`).state : null;
  if (!state) return 'as it first opens';
  const name = (list, id) => list.find((item) => item.id === id)?.name?.toLowerCase() ?? id;
  const parts = [];
  if (state.style) parts.push(name(styles(), state.style));
  if (state.color) parts.push(state.color === 'auto' ? 'automatic colours' : `coloured by ${name(colours(), state.color)}`);
  if (state.highlight) parts.push(`${state.highlight} highlighted`);
  if (state.sticks) parts.push('neighbours as sticks');
  if (state.site) parts.push(`binding site of ${state.site}`);
  if (state.hide) parts.push(state.hide === 'none' ? 'nothing hidden' : `${state.hide.replace(/,/g, ', ')} hidden`);
  if (state.labels?.length) parts.push(`label${state.labels.length === 1 ? '' : 's'} ${state.labels.join(', ')}`);
  if (state.measure?.length) parts.push(`${state.measure.length} measurement${state.measure.length === 1 ? '' : 's'}`);
  parts.push(state.view ? 'turned and zoomed' : 'first view');
  return parts.join(', ');
}
