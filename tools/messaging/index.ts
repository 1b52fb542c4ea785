/** Messages to other chats (send_message). */
export { createSendMessageTool } from "./send-message.js";
