// Types of build-worker.mjs, for the test and the benchmark that build the worker bundle themselves.
export declare const WORKER_BUNDLE: string;
export declare function bundleWorker(outDir: string): Promise<void>;
