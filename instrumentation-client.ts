// Runs in the browser before the app's own modules: settings every client bundle needs first.
import "@/lib/zod-config"
