export { ApiAdapter, type ApiAdapterOptions, createApiAdapter } from "./api-adapter.js";
