export * from "./console"
export * from "./sandbox"
export * from "./auth"
export * from "./scale"
