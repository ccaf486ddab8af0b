export * from "./console"
export * from "./sandbox"
export * from "./scale"
