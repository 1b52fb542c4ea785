export { ApiAdapter, createApiAdapter, type ApiAdapterOptions } from "./api-adapter.js";
