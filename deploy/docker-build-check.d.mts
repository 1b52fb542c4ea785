/** Types for deploy/docker-build-check.mjs (a plain-JavaScript script CI runs; the image test imports its Dockerfile reader). */
export declare function parseDockerfile(text: string): [string, string][][];
