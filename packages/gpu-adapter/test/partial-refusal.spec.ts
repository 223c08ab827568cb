/** A partly refused prompt fails VALIDATION_ERROR, saying what became of the part the backend queued. */
import { expect } from 'chai';
import { partialRefusal } from '../src/prompt-refusal.js';

const WORKFLOW = {
  '3': { class_type: 'SaveImage', inputs: { images: ['1', 0] } },
  '4': { class_type: 'ImageBlur', inputs: { blur_radius: 99 } },
};
const NODE_ERRORS = { '4': { class_type: 'ImageBlur', errors: [{ message: 'Value 99 bigger than max of 31' }] } };

describe('partialRefusal', () => {
  it('says the run never executed only when the backend took it back before it ran', () => {
    expect(partialRefusal(NODE_ERRORS, WORKFLOW, 'before-it-ran').message).to.equal('Some nodes of the workflow failed validation (4); the run was stopped before it executed');
  });

  it('says the valid part executed when it had finished before it could be taken back', () => {
    const error = partialRefusal(NODE_ERRORS, WORKFLOW, 'after-it-ran');
    expect(error).to.deep.include({ code: 'VALIDATION_ERROR', nodeId: '4', nodeType: 'ImageBlur' });
    expect(error.message).to.equal('Some nodes of the workflow failed validation (4); the valid part of the workflow had already executed on the backend; its outputs are not kept');
  });

  it('says it was interrupted, or that it may have executed when the backend could not be asked', () => {
    expect(partialRefusal(NODE_ERRORS, WORKFLOW, 'while-it-ran').message).to.match(/had started on the backend and was interrupted$/);
    expect(partialRefusal(NODE_ERRORS, WORKFLOW).message).to.match(/which may have executed; its outputs are not kept$/);
  });
});
