export { FileTypeMediaDetector } from './file-type-media-detector.js';
