use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Data, Expr, Token};

pub(crate) type TS = proc_macro2::TokenStream;

pub(crate) fn get_field_types(input: &syn::DeriveInput) -> syn::Result<Vec<TS>> {
    let mut fields = vec![];
    match &input.data {
        Data::Struct(ds) => {
            for field in &ds.fields {
                if field.ident.is_none() {
                    return Err(syn::Error::new(
                        field.span(),
                        "Unnamed fields are not supported",
                    ));
                }
                let name = &field.ident.as_ref();
                let qname = quote!(#name);
                let qname_string = qname.to_string();
                if ["config", "wire", "reg", "module", "edge", "disable"]
                    .contains(&qname_string.as_str())
                {
                    return Err(syn::Error::new(
                        field.span(),
                        "Cannot use an HDL keyword here",
                    ));
                }
                if !qname_string.starts_with('_') {
                    let ty = &field.ty;
                    fields.push(quote!(#ty));
                }
            }
        }
        _ => {
            return Err(syn::Error::new(
                input.span(),
                "Logic Derive can only be applied to structs",
            ));
        }
    }
    Ok(fields)
}

pub(crate) fn get_field_names(input: &syn::DeriveInput) -> syn::Result<Vec<TS>> {
    let mut fields = vec![];
    match &input.data {
        Data::Struct(ds) => {
            for field in &ds.fields {
                if field.ident.is_none() {
                    return Err(syn::Error::new(
                        field.span(),
                        "Unnamed fields are not supported",
                    ));
                }
                let name = &field.ident.as_ref();
                let qname = quote!(#name);
                let qname_string = qname.to_string();
                if ["config", "wire", "reg", "module", "edge", "disable"]
                    .contains(&qname_string.as_str())
                {
                    return Err(syn::Error::new(
                        field.span(),
                        "Cannot use an HDL keyword here",
                    ));
                }
                if !qname_string.starts_with('_') {
                    fields.push(qname);
                }
            }
        }
        _ => {
            return Err(syn::Error::new(
                input.span(),
                "Logic Derive can only be applied to structs",
            ));
        }
    }
    Ok(fields)
}

pub fn get_connect_all(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn connect_all(&mut self) {
            self.connect();
            #(self.#fields.connect_all();)*
        }
    })
}

pub fn get_update_all(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn update_all(&mut self) {
            self.update();
            #(self.#fields.update_all();)*
        }
    })
}

/// (patch) `update_all_tracked` of a `#[derive(LogicBlock)]`: see `block::Tracker`. The
/// block commits its own signals (the inputs its owner wrote in this pass), runs `update`
/// if anything it reads may have changed, commits its signals again (what `update` wrote),
/// then visits its child blocks, which so see their new inputs in the same pass.
pub fn get_update_all_tracked_block(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn update_all_tracked(&mut self, tracker: &mut block::Tracker, parent_ran: bool) -> bool {
            let (me, dirty) = match tracker.enter(parent_ran) {
                Some(x) => x,
                None => return false,
            };
            let mut changed = false;
            #(changed |= self.#fields.commit_signals();)*
            let run = dirty || changed;
            if run {
                self.update();
                #(changed |= self.#fields.commit_signals();)*
            }
            #(changed |= self.#fields.visit_blocks(tracker, run);)*
            tracker.leave(me, changed);
            changed
        }
    })
}

/// (patch) The tracked pass of a `#[derive(LogicInterface)]`: a bundle of its owner's
/// signals, committed with the owner's own (`commit_signals`); its fields' blocks, if any,
/// are visited as the owner's children.
pub fn get_update_all_tracked_interface(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn commit_signals(&mut self) -> bool {
            let mut changed = false;
            #(changed |= self.#fields.commit_signals();)*
            changed
        }
        fn visit_blocks(&mut self, tracker: &mut block::Tracker, parent_ran: bool) -> bool {
            let mut changed = false;
            #(changed |= self.#fields.visit_blocks(tracker, parent_ran);)*
            changed
        }
    })
}

pub fn get_has_changed(fields: Vec<TS>) -> syn::Result<TS> {
    if fields.is_empty() {
        Ok(quote! {
            fn has_changed(&self) -> bool {
                false
            }
        })
    } else {
        Ok(quote! {
            fn has_changed(&self) -> bool {
                #(self.#fields.has_changed())||*
            }
        })
    }
}

pub fn squash(x: &str) -> String {
    x.to_string().replace([' ', '\n'], "")
}

pub fn fixup_ident(x: String) -> String {
    let y = x
        .replace(' ', "")
        .replace("self.", "")
        .replace('.', "$")
        .replace("::", "$")
        .replace("&mut", "");
    assert_ne!(y, "config");
    assert_ne!(y, "input");
    assert_ne!(y, "output");
    y
}

// The dff_setup macro uses clock, dfflist arguments
#[derive(Debug)]
pub struct DFFSetupArgs {
    pub me: Expr,
    pub clock: Expr,
    pub dffs: Vec<Expr>,
}

impl Parse for DFFSetupArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let clock: Expr;
        let mut dffs = Vec::new();

        let me: Expr = input.parse()?;
        input.parse::<Token![,]>()?;
        clock = input.parse()?;
        input.parse::<Token![,]>()?;
        while !input.is_empty() {
            let dff_name: Expr = input.parse()?;
            dffs.push(dff_name);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(DFFSetupArgs { me, clock, dffs })
    }
}
