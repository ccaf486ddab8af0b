export * from "./console"
export * from "./sandbox"
