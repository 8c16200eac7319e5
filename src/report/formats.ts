// The formats a report renders to; the renderers (render.ts) load only once a report is ready.

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'junit', 'sarif'] as const
export type ReportFormat = (typeof REPORT_FORMATS)[number]
