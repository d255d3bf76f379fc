import { inject } from 'vitest';

// Test workers and what they spawn make their temporary folders in the run's own folder.
process.env.TMPDIR = inject('runDir');
